"""check-bot: exact positions sent as real requests, then whole games."""
