"""Runs a LiteRT reference script as an AVX2 + FMA CPU without AVX-512 would, on any x86-64 host.

XNNPACK picks its microkernels from the CPU it finds, and on AVX-512 CPUs some of them (the f32
sigmoid among them) give other last bits than its AVX2 + FMA kernels, which are the ones this
package's kernels reproduce. On a host with AVX-512, `run_as_avx2_cpu` re-executes the calling
script under QEMU's user-mode emulator with a Haswell CPU model (AVX2 and FMA, no AVX-512), so
that XNNPACK takes its AVX2 + FMA kernels; floating-point results under emulation are IEEE
exact, fused multiply-adds included. The emulator is Debian's `qemu-user-static` package,
fetched once with `apt-get download` into Benchmarks/.qemu (never committed).
"""
import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
QEMU_DIR = REPO_ROOT / "Benchmarks" / ".qemu"
QEMU = QEMU_DIR / "usr" / "bin" / "qemu-x86_64-static"
CPU_MODEL = "Haswell"
MARKER = "LANDMARKER_EMULATED_CPU"


def cpu_flags():
    return Path("/proc/cpuinfo").read_text().split()


def describe_cpu():
    """How the CPU XNNPACK sees is described in a reference file's producer."""
    if os.environ.get(MARKER):
        return f"QEMU {CPU_MODEL} CPU model (AVX2 and FMA, without AVX-512), user-mode emulation on an AVX-512 host"
    return "x86-64 with AVX2 and FMA, without AVX-512"


def fetch_qemu(script):
    """Debian's qemu-user-static, unpacked into Benchmarks/.qemu."""
    if QEMU.exists():
        return
    with tempfile.TemporaryDirectory() as folder:
        print(f"{script}: fetching qemu-user-static with apt-get download", file=sys.stderr)
        try:
            subprocess.run(["apt-get", "download", "qemu-user-static"], cwd=folder, check=True, stdout=sys.stderr)
        except (OSError, subprocess.CalledProcessError) as error:
            sys.exit(f"{script}: this CPU has AVX-512 and qemu-user-static could not be fetched ({error}); "
                     "run on an x86-64 CPU with AVX2 and FMA but without AVX-512, or install Debian's "
                     "qemu-user-static")
        package = next(Path(folder).glob("qemu-user-static_*.deb"))
        subprocess.run(["dpkg-deb", "-x", str(package), str(QEMU_DIR)], check=True)


def run_as_avx2_cpu(script):
    """Returns when XNNPACK will see an AVX2 + FMA CPU without AVX-512; otherwise re-executes
    the script under the emulator (and never returns)."""
    if os.environ.get(MARKER):
        return  # /proc/cpuinfo still names the host's flags; CPUID answers as the emulated model
    flags = cpu_flags()
    if "avx512f" not in flags:
        if "avx2" not in flags or "fma" not in flags:
            sys.exit(f"{script}: needs an x86-64 CPU with AVX2 and FMA")
        return
    fetch_qemu(script)
    print(f"{script}: this CPU has AVX-512; running under QEMU as a {CPU_MODEL} CPU", file=sys.stderr)
    os.environ[MARKER] = CPU_MODEL
    # QEMU warns about CPUID features TCG lacks (TSX, invpcid): harmless for user code.
    os.execv(str(QEMU), [str(QEMU), "-cpu", CPU_MODEL, sys.executable, *sys.argv])
