# Measures the time from a Square webhook's arrival at tender-server to the payment's confirmed verdict in the ledger.
# The sandbox's webhooks are held by a relay until the device has synced, then posted to the server one payment at a
# time; the ledger is polled (GET /v1/payments/{device}/{payment}) until the server's verdict is there.
import http.server, json, os, subprocess, sys, threading, time, urllib.request, statistics, socket

# Usage: python3 Server/Benchmarks/WebhookLatency/measure.py [PAYMENTS] [CONFIGURATION], after
# `swift build [-c release]` and `swift build --package-path Server [-c release]` (CONFIGURATION: debug or release).
import tempfile
root = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
configuration = sys.argv[2] if len(sys.argv) > 2 else "debug"
T = os.path.join(root, ".build", configuration, "tender")
S = os.path.join(root, "Server", ".build", configuration, "tender-server")
work = tempfile.mkdtemp(prefix="tender-webhook-latency-")
def free():
    s = socket.socket(); s.bind(("127.0.0.1", 0)); p = s.getsockname()[1]; s.close(); return p
R, SB, SV = free(), free(), free()
KEY = "lat-signature-key"
TOKEN = "top_latency-benchmark-token-0123456789abcdef"
NOTIFY = f"http://127.0.0.1:{R}/v1/webhooks/square"
held = []
class Relay(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers["Content-Length"]))
        held.append((dict(self.headers), body))
        self.send_response(200); self.send_header("Content-Length", "0"); self.end_headers()
    def log_message(self, *a): pass
relay = http.server.ThreadingHTTPServer(("127.0.0.1", R), Relay)
threading.Thread(target=relay.serve_forever, daemon=True).start()

sandbox = subprocess.Popen([T, "sandbox", "--port", str(SB), "--square-access-token", "sbtok", "--square-location-id", "L1",
    "--square-webhook-url", NOTIFY, "--square-webhook-signature-key", KEY], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
env = dict(os.environ, SQUARE_ACCESS_TOKEN="sbtok", TENDER_OPERATOR_TOKEN=TOKEN)
server = subprocess.Popen([S, "serve", "--database", f"sqlite:{work}/ledger.sqlite", "--port", str(SV),
    "--square-webhook-url", NOTIFY, "--square-webhook-signature-key", KEY, "--square-merchant-id", "MLTENDERSANDBOX",
    "--base-url", f"http://127.0.0.1:{SB}", "--reconcile-every", "0"], env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
server.stdout.readline(); sandbox.stdout.readline()
time.sleep(0.5)
device = json.loads(subprocess.check_output([S, "devices", "add", "till", "--json", "--database", f"sqlite:{work}/ledger.sqlite"]))
journal = f"{work}/j.sqlite"
N = int(sys.argv[1]) if len(sys.argv) > 1 else 30
def pay(amount, into):
    """A Square payment approved on the sandbox's Point of Sale and handled into the journal `into`: its ID, and the
    webhooks the relay held for it."""
    url = subprocess.check_output([T, "pay", "square", "--application-id", "sq0idp-TenderSandbox", "--amount", str(amount),
        "--currency", "USD", "--callback", "my-app://done", "--location-id", "L1", "--tenders", "card", "--journal", into]).decode().strip()
    before = len(held)
    req = urllib.request.Request(f"http://127.0.0.1:{SB}/api/simulate", data=json.dumps({"request_url": url, "outcome": "approve"}).encode(),
        headers={"Content-Type": "application/json"})
    callback = json.load(urllib.request.urlopen(req))["callback_url"]
    receipt = json.loads(subprocess.check_output([T, "handle", callback, "--journal", into]))
    deadline = time.time() + 30
    while len(held) == before and time.time() < deadline: time.sleep(0.01)
    time.sleep(0.3)
    return receipt["payment_id"], held[before:]
def post(events):
    for headers, body in events:
        h = {k: v for k, v in headers.items() if k.lower() in ("content-type", "x-square-hmacsha256-signature")}
        urllib.request.urlopen(urllib.request.Request(f"http://127.0.0.1:{SV}/v1/webhooks/square", data=body, headers=h))
payments = [pay(100 + i, journal) for i in range(N)]
subprocess.check_output([T, "journal", "sync", "--server", f"http://127.0.0.1:{SV}", "--journal", journal],
    env=dict(os.environ, TENDER_DEVICE_KEY=device["key"]))
def verdict(pid, owner=None):
    owner = owner or device
    r = urllib.request.Request(f"http://127.0.0.1:{SV}/v1/payments/{owner['device_id']}/{pid}", headers={"Authorization": "Bearer " + TOKEN})
    p = json.load(urllib.request.urlopen(r))
    v = p.get("server_verification")
    return v and v.get("verdict")
latencies = []
for pid, events in payments:
    assert verdict(pid) is None, "a verdict before its webhooks"
    start = time.perf_counter()
    post(events)
    while True:
        v = verdict(pid)
        if v: break
        if time.perf_counter() - start > 30: v = "none in 30 s"; break
        time.sleep(0.002)
    latencies.append((time.perf_counter() - start) * 1000)
    if v != "confirmed": print("payment", pid, "verdict", v)
latencies.sort()
print(f"{len(latencies)} payments, {sum(len(e) for _, e in payments)} webhooks; webhook to confirmed verdict: "
      f"p50 {statistics.median(latencies):.1f} ms, min {latencies[0]:.1f}, max {latencies[-1]:.1f} ms")

# The other order, as it usually comes: the webhooks reach the server first, then the device syncs. Measured from the
# sync's answer (the `journal sync` command's end) to each payment's confirmed verdict.
second = json.loads(subprocess.check_output([S, "devices", "add", "till 2", "--json", "--database", f"sqlite:{work}/ledger.sqlite"]))
journal2 = f"{work}/j2.sqlite"
ids = []
for i in range(N):
    pid, events = pay(5000 + i, journal2)
    post(events)
    ids.append(pid)
subprocess.check_output([T, "journal", "sync", "--server", f"http://127.0.0.1:{SV}", "--journal", journal2],
    env=dict(os.environ, TENDER_DEVICE_KEY=second["key"]))
answered = time.perf_counter()
pending, after_sync = set(ids), []
# One request a pass reads every payment of the device (GET /v1/payments?device=…), so that a pass is one request
# however many are pending.
listing = f"http://127.0.0.1:{SV}/v1/payments?device={second['device_id']}&limit=200"
while pending and time.perf_counter() - answered < 30:
    page = json.load(urllib.request.urlopen(urllib.request.Request(listing, headers={"Authorization": "Bearer " + TOKEN})))
    now = (time.perf_counter() - answered) * 1000
    for p in page["payments"]:
        v = p.get("server_verification")
        if p["payment_id"] in pending and v and v.get("verdict") == "confirmed":
            after_sync.append(now)
            pending.remove(p["payment_id"])
    time.sleep(0.002)
after_sync.sort()
if pending: print(len(pending), "payments not confirmed within 30 s of the sync")
if after_sync:
    print(f"{len(after_sync)} payments, webhooks first: sync's answer to confirmed verdict: "
          f"p50 {statistics.median(after_sync):.1f} ms, min {after_sync[0]:.1f}, max {after_sync[-1]:.1f} ms")
with open("/proc/loadavg") as f: print("load average:", f.read().split()[:3])
server.terminate(); sandbox.terminate()
subprocess.run(["rm", "-rf", work])
