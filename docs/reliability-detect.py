# Measures how fast the survivors of a job learn that a rank was killed (docs/reliability.md).
# Run from the repository root after: mvn -q -DskipTests package && mvn -q test-compile
import subprocess, time, re, os, signal, sys, statistics
CP="target/sm4j.jar:target/test-classes"
def once(n, victim_kind):
    p = subprocess.Popen(["java","--add-opens","java.base/jdk.internal.misc=ALL-UNNAMED","-cp",CP,"io.sm4j.cli.Sm4jCli","run","-n",str(n),"--timeout","60","--","io.sm4j.it.FailureApp","wait"],stdout=subprocess.PIPE,stderr=subprocess.STDOUT,text=True,bufsize=1)
    pids={}
    while len(pids)<n:
        line=p.stdout.readline()
        m=re.match(r"\[(\d+)\] rank \d+ pid (\d+) waiting",line)
        if m: pids[int(m.group(1))]=int(m.group(2))
    time.sleep(0.5)
    t0=time.monotonic()
    os.kill(pids[n//2], signal.SIGKILL)
    seen=[]
    for line in p.stdout:
        if " saw: " in line: seen.append((time.monotonic()-t0)*1000)
        if len(seen)==n-1: break
    p.wait()
    return seen
for n in (4,8):
    allv=[]
    for i in range(5):
        allv+=once(n,"rank")
    print(f"n={n}: kill -9 of one rank -> survivor saw the abort: median {statistics.median(allv):.0f} ms, max {max(allv):.0f} ms over {len(allv)} survivor reports")
