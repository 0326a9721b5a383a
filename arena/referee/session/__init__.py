"""A bot's session: its Play stream, one request in flight on it, and what each request
comes to (a reply, or the fault that replaces it, in words the bot's author can act on)."""
