#!/bin/sh
# Stand-in for ssh in tests: "fake_ssh.sh [-opts] HOST COMMAND" runs COMMAND here through sh -c, as ssh
# runs it through the remote user's shell, with FAKE_SSH_HOST=HOST so tests can tell where it "ran".
# Like a command under sshd, it runs in its own session (mpirun's signals to the agent's process group
# and the agent's death do not reach it); its stdio and exit status pass through as ssh passes them.
while [ $# -gt 0 ]; do case "$1" in -*) shift ;; *) break ;; esac; done
host=$1
shift
FAKE_SSH_HOST=$host
export FAKE_SSH_HOST
exec 3<&0
setsid sh -c "$*" <&3 3<&- &
wait $!
