"""Build torch_fabmpi against the torch it is installed with and an MPICH-ABI MPI.

MPI discovery, first match wins:
  FABMPI_PREFIX=/opt/fabmpi      -> $FABMPI_PREFIX/include/mpi.h, -L$FABMPI_PREFIX/lib -lmpi (rpath set)
  FABMPI_MPICC=mpicc.mpich       -> the include/lib flags that `$FABMPI_MPICC -show` prints
  otherwise                      -> `mpicc.mpich -show`, then `mpicc -show`
FABMPI_MPI_LIB overrides the library name (default "mpi" with FABMPI_PREFIX).
"""
import os
import shlex
import shutil
import subprocess

from setuptools import setup
from torch.utils.cpp_extension import BuildExtension, CppExtension


def mpi_flags():
    prefix = os.environ.get("FABMPI_PREFIX")
    if prefix:
        lib = os.path.join(prefix, "lib")
        return ([os.path.join(prefix, "include")], [lib], [os.environ.get("FABMPI_MPI_LIB", "mpi")], [lib])
    candidates = [os.environ.get("FABMPI_MPICC"), "mpicc.mpich", "mpicc"]
    for cc in filter(None, candidates):
        if not shutil.which(cc):
            continue
        args = shlex.split(subprocess.check_output([cc, "-show"], text=True))
        inc = [a[2:] for a in args if a.startswith("-I")]
        libdirs = [a[2:] for a in args if a.startswith("-L")]
        libs = [a[2:] for a in args if a.startswith("-l")]
        if os.environ.get("FABMPI_MPI_LIB"):
            libs = [os.environ["FABMPI_MPI_LIB"]]
        return inc, libdirs, libs, libdirs
    raise SystemExit("torch_fabmpi: no MPI found; set FABMPI_PREFIX or FABMPI_MPICC")


inc, libdirs, libs, rpath = mpi_flags()
here = os.path.dirname(os.path.abspath(__file__))
sources = [os.path.join("csrc", f) for f in ("engine.cpp", "process_group.cpp", "p2p.cpp", "module.cpp")]

setup(
    name="torch_fabmpi",
    version="0.1.0",
    description="torch.distributed backend 'fabmpi' over MPI (fabmpi or any MPICH-ABI MPI)",
    packages=["torch_fabmpi"],
    ext_modules=[
        CppExtension(
            "torch_fabmpi._C",
            sources,
            include_dirs=[os.path.join(here, "csrc")] + inc,
            library_dirs=libdirs,
            libraries=libs,
            runtime_library_dirs=rpath,
            extra_compile_args=["-std=c++17", "-O2", "-Wall", "-Wno-unused-function", "-Wno-deprecated-declarations"],
        )
    ],
    cmdclass={"build_ext": BuildExtension},
)
