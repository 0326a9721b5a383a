# What a walk of the folder must neither follow, open nor read to the end.
set -e
rm -f pipe sock
ln -sfn /dev/zero zero        # read, it never ends
mkfifo pipe                   # opened, it never answers
python -c "import socket; socket.socket(socket.AF_UNIX).bind('sock')"
ln -sfn / everything          # a folder outside: never walked into
mkdir -p bin
ln -sfn /dev/zero bin/zero
truncate -s 100G bin/huge     # an output: listed by size and time, never read
echo built
