#!/bin/bash
# A launcher for run.sh that starts the ranks with torchrun instead of mpirun (no PMI: MPI is bootstrapped
# through torch's store with MPIX_Init_with_store).
#   tests/python/run.sh tests/python/torchrun.sh
# run.sh calls "$LAUNCHER -n N PYTHON -m MODULE ARGS..."; this becomes
#   PYTHON -m torch.distributed.run --redirects 1 --tee 1 --nproc_per_node=N --master_port=P -m MODULE ARGS...
# (--redirects/--tee: Debian's torch 1.13 torchrun crashes parsing its defaults on Python 3.11 without them).
set -eu
[ "${1:-}" = "-n" ] && [ $# -ge 4 ] && [ "$3" = "${3%% *}" ] && [ "$4" = "-m" ] || {
    echo "usage: $0 -n N PYTHON -m MODULE [ARGS...]" >&2
    exit 2
}
n=$2
python=$3
shift 4
# Whatever launched us may have left PMI or torchrun variables behind: the ranks must see only torchrun's.
for v in $(env | sed -n -E 's/^((PMI|PMIX|HYDRA|OMPI|MPI_LOCAL|FABMPI_RANK|FABMPI_SIZE)[A-Za-z0-9_]*)=.*/\1/p'); do
    unset "$v"
done
unset RANK WORLD_SIZE LOCAL_RANK LOCAL_WORLD_SIZE MASTER_ADDR MASTER_PORT GROUP_RANK
port=$("$python" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
exec "$python" -m torch.distributed.run --redirects 1 --tee 1 --nproc_per_node="$n" --master_port="$port" \
    -m "$@"
