#!/bin/bash
# The test's command channel (virtio-serial port vpi.shell): lines "ID COMMAND", each command run
# as root; its output, then a line "__VPI_END ID <exit code>". Test equipment only: no Pi has this.
port=$(/usr/local/lib/virtual-pi/vport vpi.shell) || exit 1
exec 3<>"$port"
while IFS=' ' read -r id line <&3; do
  bash -c "$line" </dev/null >&3 2>&1
  echo "__VPI_END $id $?" >&3
done
