"""A throw-away single-node Slurm cluster for tests (Debian's slurm-wlm and
munge), run as the current user in a temporary directory:

* munged with a fresh key and its own socket;
* slurmctld and slurmd in the foreground (``-D``) in the background, on
  free TCP ports, with state, spool, logs and pid files in the directory;
* one node declaring ``Gres=gpu:1`` (gres.conf points at a plain file as the
  fake device), ``select/cons_tres``, ``proctrack/linuxproc``, no
  accounting (``accounting_storage/none``, ``jobacct_gather/none``: sacct
  has nothing, so clients fall back to squeue and exit files).

    with LocalSlurm(tmpdir) as cluster:
        env = cluster.env      # SLURM_CONF for sbatch / squeue / scancel
        ...

``available()`` says why the cluster cannot be started (binaries missing),
or None. ``stop()`` always kills every daemon it started (by pid).
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import time
from typing import Optional

BINARIES = ("munged", "slurmctld", "slurmd", "sbatch", "squeue", "scancel", "sinfo")
SBIN = ("/usr/sbin", "/usr/bin", "/sbin", "/bin")


def which(name: str) -> Optional[str]:
    p = shutil.which(name)
    if p:
        return p
    for d in SBIN:
        c = os.path.join(d, name)
        if os.access(c, os.X_OK):
            return c
    return None


def available() -> Optional[str]:
    missing = [b for b in BINARIES if not which(b)]
    if missing:
        return ("Slurm test cluster needs " + ", ".join(missing) +
                " (Debian: apt-get install slurm-wlm munge; scripts/deps.sh installs them)")
    return None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class ClusterError(RuntimeError):
    pass


class LocalSlurm:
    def __init__(self, root: str, cpus: int = 4, name: str = "argusnode"):
        self.root = os.path.abspath(root)
        self.cpus = cpus
        self.node = name
        self.procs = []
        self.conf = os.path.join(self.root, "slurm.conf")
        self.sock = os.path.join(self.root, "munge", "munge.sock")
        self.env = dict(os.environ, SLURM_CONF=self.conf)

    # -- files -----------------------------------------------------------
    def _write_config(self):
        r = self.root
        for d in ("munge", "state", "spool", "log"):
            os.makedirs(os.path.join(r, d), exist_ok=True)
        os.chmod(os.path.join(r, "munge"), 0o700)
        self.gpu_file = os.path.join(r, "fakegpu0")
        open(self.gpu_file, "w").close()
        host = socket.gethostname()
        self.ctld_port, self.slurmd_port = free_port(), free_port()
        while self.slurmd_port == self.ctld_port:
            self.slurmd_port = free_port()
        user = os.environ.get("USER") or __import__("pwd").getpwuid(os.getuid()).pw_name
        conf = f"""\
ClusterName=argustest{self.ctld_port}
SlurmctldHost={host}(127.0.0.1)
SlurmUser={user}
SlurmdUser={user}
SlurmctldPort={self.ctld_port}
SlurmdPort={self.slurmd_port}
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket={self.sock}
StateSaveLocation={r}/state
SlurmdSpoolDir={r}/spool
SlurmctldPidFile={r}/slurmctld.pid
SlurmdPidFile={r}/slurmd.pid
SlurmctldLogFile={r}/log/slurmctld.log
SlurmdLogFile={r}/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
GresTypes=gpu
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SwitchType=switch/none
ReturnToService=2
SlurmdParameters=config_overrides
SchedulerType=sched/backfill
SchedulerParameters=sched_interval=1,bf_interval=1
MessageTimeout=5
KillWait=1
MinJobAge=600
InactiveLimit=0
SlurmctldTimeout=30
SlurmdTimeout=30
NodeName={self.node} NodeHostname={host} NodeAddr=127.0.0.1 CPUs={self.cpus} RealMemory=1000 Gres=gpu:1 State=UNKNOWN
PartitionName=argus Nodes={self.node} Default=YES MaxTime=INFINITE State=UP
"""
        with open(self.conf, "w") as f:
            f.write(conf)
        with open(os.path.join(r, "gres.conf"), "w") as f:
            f.write(f"NodeName={self.node} Name=gpu File={self.gpu_file}\n")

    # -- daemons -----------------------------------------------------------
    def _spawn(self, argv, log):
        out = open(os.path.join(self.root, "log", log), "w")
        p = subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT, env=self.env,
                             start_new_session=True)
        self.procs.append(p)
        return p

    def start(self, timeout: float = 30.0) -> "LocalSlurm":
        why = available()
        if why:
            raise ClusterError(why)
        self._write_config()
        key = os.path.join(self.root, "munge", "munge.key")
        with open(key, "wb") as f:
            f.write(os.urandom(1024))
        os.chmod(key, 0o400)
        m = os.path.join(self.root, "munge")
        # -F: foreground; --force: run as root / with a socket dir we own
        self._spawn([which("munged"), "-F", "--force", f"--key-file={key}", f"--socket={self.sock}",
                     f"--pid-file={m}/munged.pid", f"--log-file={m}/munged.log",
                     f"--seed-file={m}/munged.seed"], "munged.out")
        self._wait(lambda: os.path.exists(self.sock), timeout, "munged did not create its socket")
        self._spawn([which("slurmctld"), "-D", "-i", "-f", self.conf], "slurmctld.out")
        self._spawn([which("slurmd"), "-D", "-f", self.conf, "-N", self.node], "slurmd.out")

        def node_up():
            p = subprocess.run([which("sinfo"), "--noheader", "--format=%t", "-n", self.node],
                               capture_output=True, text=True, env=self.env)
            s = p.stdout.strip()
            return p.returncode == 0 and s and s.rstrip("*") in ("idle", "mix", "alloc")
        self._wait(node_up, timeout, "the node did not become idle")
        return self

    def _wait(self, cond, timeout, what):
        end = time.time() + timeout
        while time.time() < end:
            for p in self.procs:
                if p.poll() is not None:
                    raise ClusterError(f"{what}: {p.args[0]} exited {p.returncode}\n" + self.logs())
            if cond():
                return
            time.sleep(0.2)
        raise ClusterError(f"{what} within {timeout} s\n" + self.logs())

    def logs(self, tail: int = 3000) -> str:
        out = []
        for d, _, files in os.walk(self.root):
            for fn in files:
                if fn.endswith((".log", ".out")) and ("log" in d or "munge" in d):
                    try:
                        txt = open(os.path.join(d, fn), errors="replace").read()[-tail:]
                    except OSError:
                        continue
                    out.append(f"--- {fn}\n{txt}")
        return "\n".join(out)

    def stop(self) -> None:
        for p in reversed(self.procs):
            if p.poll() is None:
                try:
                    os.killpg(p.pid, signal.SIGTERM)
                except OSError:
                    pass
        end = time.time() + 10
        for p in reversed(self.procs):
            try:
                p.wait(max(0.1, end - time.time()))
            except subprocess.TimeoutExpired:
                try:
                    os.killpg(p.pid, signal.SIGKILL)
                except OSError:
                    pass
                p.wait(5)
        self.procs = []

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()
