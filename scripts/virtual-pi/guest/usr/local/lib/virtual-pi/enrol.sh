#!/bin/sh
# Enrolment as the README's "Install on a Pi" does it: the bundle (a tar on the second disk,
# standing for the operator's copy) into /etc/fleetmcp, the key readable by group fleetmcp only.
set -eu
tar -xf /dev/vdb -C /etc/fleetmcp
chown root:fleetmcp /etc/fleetmcp/node.key
chmod 0640 /etc/fleetmcp/node.key
