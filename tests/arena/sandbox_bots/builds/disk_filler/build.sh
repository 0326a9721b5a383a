# Fills its own folder, a megabyte at a time, for as long as it is let: a build may write
# its folder, and this one would take the whole disk the results and the league are on.
i=0
while [ "$i" -lt 100000 ]; do
    head -c 1048576 /dev/zero > "junk$i" || exit 1
    i=$((i + 1))
done
echo built
