"""A CI suite in Python (standard library only) against the podqa fake server program.

It starts the fake with a fixtures file and a seed, reads its JSON line, and then drives it
the way a suite in any language would: the REST API with the key the fixtures chose, the
control API for time, faults, reset and the request journal, and its own loopback receiver
for signed webhooks.

Run it from the repository's root:

    python3 -m unittest discover -s examples/ci-python -v

Without FAKESERVER_BIN it builds the program with `go build` first (and fails, naming why, when
it cannot); with FAKESERVER_BIN it runs that program:

    go build -o /tmp/fakeserver ./fakeserver/cmd/fakeserver
    FAKESERVER_BIN=/tmp/fakeserver python3 -m unittest discover -s examples/ci-python -v

A suite that runs the fake as a service container (see the README) reads the same JSON line
from the container's log and passes the fixtures file as a mounted volume.

The fake writes a report of the run (-report-dir) into PODQA_REPORT_DIR, or a temporary
directory without it, when SIGTERM stops it: podqa-fake-report-<run id>.json and .html. The
suite checks that both are there and that the JSON parses; CI uploads the directory when a job
fails (see the README).
"""

import base64
import glob
import hashlib
import hmac
import http.server
import json
import os
import subprocess
import tempfile
import threading
import unittest
import urllib.error
import urllib.parse
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
START = "2026-01-05T09:00:00Z"
SEED = "42"
# The key and the signing secret are the suite's own: it hard-codes them.
API_KEY = "podqa_api_ci_python_0123456789abcdef"
SECRET = "whsec_" + base64.b64encode(b"ci-python-signing-secret-32bytes").decode()


class Receiver(http.server.BaseHTTPRequestHandler):
    """A webhook receiver on loopback: it keeps each delivery's headers and raw body."""

    deliveries = []
    lock = threading.Lock()

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        with Receiver.lock:
            Receiver.deliveries.append((dict(self.headers), body))
        self.send_response(204)
        self.end_headers()

    def log_message(self, *args):
        pass


def fake_binary(workdir):
    """The program to run: FAKESERVER_BIN, else one built here with `go build`."""
    binary = os.environ.get("FAKESERVER_BIN")
    if binary:
        if not os.access(binary, os.X_OK):
            raise RuntimeError("FAKESERVER_BIN=%s is not an executable file" % binary)
        return binary
    root = os.path.dirname(os.path.dirname(HERE))
    binary = os.path.join(workdir, "fakeserver")
    cmd = ["go", "build", "-o", binary, "./fakeserver/cmd/fakeserver"]
    try:
        subprocess.run(cmd, cwd=root, check=True)
    except FileNotFoundError:
        raise RuntimeError("FAKESERVER_BIN is not set and go is not on PATH to build the fake: "
                           "install Go or set FAKESERVER_BIN to a built fakeserver program")
    except subprocess.CalledProcessError as err:
        raise RuntimeError("FAKESERVER_BIN is not set and `%s` in %s failed (exit %d)"
                           % (" ".join(cmd), root, err.returncode))
    return binary


def verify_signature(secret, headers, body):
    """The Standard Webhooks check: HMAC-SHA256 of "{id}.{timestamp}.{body}" under the key."""
    key = base64.b64decode(secret[len("whsec_"):])
    signed = b".".join([headers["webhook-id"].encode(), headers["webhook-timestamp"].encode(), body])
    expected = base64.b64encode(hmac.new(key, signed, hashlib.sha256).digest()).decode()
    return any(
        hmac.compare_digest(sig.split(",", 1)[1], expected)
        for sig in headers["webhook-signature"].split()
        if sig.startswith("v1,")
    )


def read_run_report(directory):
    """The run report in directory: its JSON, parsed, once the HTML beside it is there too."""
    found = glob.glob(os.path.join(directory, "podqa-fake-report-*.json"))
    if len(found) != 1:
        raise RuntimeError("want one run report in %s, found %r" % (directory, found))
    with open(found[0]) as f:
        run = json.load(f)
    if run.get("format") != "podqa-fake-run-report/1":
        raise RuntimeError("%s is not a run report: format %r" % (found[0], run.get("format")))
    page = found[0][:-len(".json")] + ".html"
    with open(page) as f:
        if run["run_id"] not in f.read():
            raise RuntimeError("%s does not show run %s" % (page, run["run_id"]))
    return run


class FakeServerSuite(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.addClassCleanup(cls.tmp.cleanup)
        binary = fake_binary(cls.tmp.name)
        cls.receiver = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Receiver)
        threading.Thread(target=cls.receiver.serve_forever, daemon=True).start()
        hook_url = "http://127.0.0.1:%d/hooks/podqa" % cls.receiver.server_address[1]

        # The checked-in fixtures plus an endpoint at this run's receiver, with our secret.
        with open(os.path.join(HERE, "fixtures.json")) as f:
            fixtures = json.load(f)
        fixtures["workspaces"][0]["webhook_endpoints"] = [
            {"ref": "hook", "url": hook_url, "events": ["report.completed"], "secret": SECRET}
        ]
        path = os.path.join(cls.tmp.name, "fixtures.json")
        with open(path, "w") as f:
            json.dump(fixtures, f)

        cls.report_dir = os.environ.get("PODQA_REPORT_DIR") or os.path.join(cls.tmp.name, "report")
        cls.proc = subprocess.Popen(
            [binary, "-addr", "127.0.0.1:0", "-clock", "manual", "-start", START, "-seed", SEED,
             "-fixtures", path, "-allow-private-urls", "-log-level", "warn",
             "-report-dir", cls.report_dir],
            stdout=subprocess.PIPE, text=True)
        line = cls.proc.stdout.readline()
        if not line:
            cls.proc.wait(timeout=10)
            raise RuntimeError("the fake printed no JSON line (exit %s)" % cls.proc.returncode)
        cls.line = json.loads(line)
        cls.base = cls.line["base_url"]
        cls.admin = cls.line["admin_token"]
        cls.ids = cls.line["fixtures"]

    @classmethod
    def tearDownClass(cls):
        cls.proc.terminate()
        code = cls.proc.wait(timeout=10)
        cls.receiver.shutdown()
        if code != 0:
            raise RuntimeError("the fake exited %d after SIGTERM" % code)
        # The report of the run, written as the fake stopped.
        run = read_run_report(cls.report_dir)
        if run["reason"] != "stop":
            raise RuntimeError("the run report says it was written on %r, not on stop" % run["reason"])

    def setUp(self):
        # Every test starts from the start state: same ids, same keys, clock at START.
        status, body = self.control("POST", "/_fake/reset")
        self.assertEqual(status, 200)
        self.assertEqual(body["now"], "2026-01-05T09:00:00.000000+00:00")
        with Receiver.lock:
            Receiver.deliveries.clear()

    # -- helpers -------------------------------------------------------------------------

    def request(self, method, path, token, payload=None):
        data = None if payload is None else json.dumps(payload).encode()
        req = urllib.request.Request(self.base + path, data=data, method=method)
        req.add_header("Authorization", "Bearer " + token)
        if data is not None:
            req.add_header("Content-Type", "application/json")
        try:
            with urllib.request.urlopen(req, timeout=30) as resp:
                return resp.status, resp.headers, resp.read()
        except urllib.error.HTTPError as err:
            return err.code, err.headers, err.read()

    def api(self, method, path, payload=None):
        status, _, raw = self.request(method, "/api/rest/v1" + path, API_KEY, payload)
        return status, json.loads(raw) if raw else None

    def control(self, method, path, payload=None):
        status, _, raw = self.request(method, path, self.admin, payload)
        return status, json.loads(raw) if raw else None

    def advance(self, seconds):
        status, body = self.control("POST", "/_fake/clock/advance", {"seconds": seconds})
        self.assertEqual(status, 200, body)
        return body["now"]

    def page_through(self, path, **params):
        """Every item of a control listing, following next_cursor from the first page."""
        items, pages = [], 0
        while True:
            status, page = self.control("GET", path + "?" + urllib.parse.urlencode(params))
            self.assertEqual(status, 200, page)
            items += page["items"]
            pages += 1
            if page["next_cursor"] is None:
                return items, pages
            params["cursor"] = page["next_cursor"]

    def report_of_episode(self, index):
        status, report = self.api("POST", "/reports",
                                  {"feed_url": self.ids["feeds"]["show"]["feed_url"], "episode_index": index})
        self.assertEqual(status, 201, report)
        return report["id"]

    # -- tests ---------------------------------------------------------------------------

    def test_the_fixture_key_works(self):
        status, me = self.api("GET", "/me")
        self.assertEqual(status, 200)
        self.assertEqual(me["workspace"]["id"], self.ids["workspaces"]["acme"])
        self.assertEqual(me["key"]["id"], self.ids["api_keys"]["ci"])

    def test_report_verdicts_follow_the_clock(self):
        loud, quiet = self.report_of_episode(0), self.report_of_episode(1)
        status, report = self.api("GET", "/reports/" + loud)
        self.assertNotEqual(report["status"], "COMPLETE")  # time has not moved yet
        self.advance(600)
        verdicts = {}
        for rid in (loud, quiet):
            status, report = self.api("GET", "/reports/" + rid)
            self.assertEqual(status, 200)
            self.assertEqual(report["status"], "COMPLETE")
            verdicts[rid] = report["stats"]["passed"]
        self.assertEqual(verdicts, {loud: True, quiet: False})

    def test_injected_fault_is_seen_once(self):
        status, _ = self.control("POST", "/_fake/faults",
                                 {"path_prefix": "/api/rest/v1/me", "status": 503, "count": 1})
        self.assertEqual(status, 201)
        status, _, raw = self.request("GET", "/api/rest/v1/me", API_KEY)
        self.assertEqual((status, raw), (503, b"Service Unavailable"))
        status, _ = self.api("GET", "/me")
        self.assertEqual(status, 200)

    def test_rate_limit_fault_says_when_to_retry(self):
        status, fault = self.control("POST", "/_fake/faults",
                                     {"path_prefix": "/api/rest/v1/reports", "status": 429, "retry_after_s": 7})
        self.assertEqual(status, 201, fault)
        status, headers, raw = self.request("GET", "/api/rest/v1/reports", API_KEY)
        self.assertEqual(status, 429)
        self.assertEqual(headers["Retry-After"], "7")
        self.assertEqual(json.loads(raw)["error"]["code"], "rate_limited")
        status, armed = self.control("GET", "/_fake/faults")
        self.assertEqual([(f["id"], f["matches"], f["fired"]) for f in armed["items"]], [(fault["id"], 1, 1)])
        status, _ = self.control("DELETE", "/_fake/faults/" + fault["id"])
        self.assertEqual(status, 204)
        status, _ = self.api("GET", "/reports")
        self.assertEqual(status, 200)

    def test_flaky_path_fails_the_same_calls_in_every_run(self):
        def pattern():
            status, _ = self.control("POST", "/_fake/faults",
                                     {"path_prefix": "/api/rest/v1/me", "status": 503, "probability": 0.3})
            self.assertEqual(status, 201)
            return [self.request("GET", "/api/rest/v1/me", API_KEY)[0] for _ in range(20)]
        first = pattern()
        self.assertEqual(set(first), {200, 503}, first)
        self.control("POST", "/_fake/reset")  # disarms the fault; the seed replays the same draws
        self.assertEqual(pattern(), first)

    def test_webhook_delivery_is_signed_with_our_secret(self):
        rid = self.report_of_episode(0)
        self.advance(600)  # the delivery is made before advance answers
        with Receiver.lock:
            deliveries = list(Receiver.deliveries)
        self.assertEqual(len(deliveries), 1)
        headers, body = deliveries[0]
        headers = {k.lower(): v for k, v in headers.items()}
        self.assertTrue(verify_signature(SECRET, headers, body), headers)
        self.assertFalse(verify_signature(SECRET, headers, body + b" "), "a changed body must not verify")
        event = json.loads(body)
        self.assertEqual(event["type"], "report.completed")
        self.assertEqual(event["data"]["report"]["id"], rid)

    def test_request_journal_shows_what_we_sent(self):
        self.report_of_episode(0)
        self.api("GET", "/reports/not-a-uuid")
        status, journal = self.control("GET", "/_fake/requests?method=post&path_prefix=/api/rest/v1/reports")
        self.assertEqual(status, 200)
        self.assertEqual(len(journal["items"]), 1)
        entry = journal["items"][0]
        self.assertEqual(entry["status"], 201)
        self.assertEqual(entry["workspace_id"], self.ids["workspaces"]["acme"])
        self.assertEqual(entry["api_key_id"], self.ids["api_keys"]["ci"])
        self.assertIn(self.ids["feeds"]["show"]["feed_url"], entry["request_body"])
        self.assertNotIn(API_KEY, json.dumps(journal))  # never the key itself
        status, bad = self.control("GET", "/_fake/requests?status=400")
        self.assertEqual([e["error_code"] for e in bad["items"]], ["validation_error"])
        status, _ = self.control("GET", "/_fake/requests?limit=0")
        self.assertEqual(status, 400)

    def test_run_report_on_demand(self):
        rid = self.report_of_episode(0)
        self.advance(600)
        status, files = self.control("POST", "/_fake/report")
        self.assertEqual(status, 200, files)
        self.assertEqual(os.path.dirname(files["json"]), os.path.abspath(self.report_dir))
        run = read_run_report(self.report_dir)
        self.assertEqual(run["reason"], "request")
        self.assertEqual([(r["id"], r["status"]) for r in run["reports"]], [(rid, "COMPLETE")])
        self.assertEqual(run["summary"]["deliveries_by_status"], {"succeeded": 1})
        self.assertNotIn(API_KEY, json.dumps(run))  # the journal masks the key here too

    def test_listings_page_by_cursor(self):
        loud, quiet = self.report_of_episode(0), self.report_of_episode(1)
        self.advance(600)
        workspaces, _ = self.page_through("/_fake/workspaces", limit=1)
        self.assertIn(self.ids["workspaces"]["acme"], [w["id"] for w in workspaces])
        feeds, _ = self.page_through("/_fake/feeds")
        self.assertIn(self.ids["feeds"]["show"]["feed_url"], [f["feed_url"] for f in feeds])
        # Reports of one workspace, newest first, one a page; each with its name and verdict.
        reports, pages = self.page_through("/_fake/reports", workspace_id=self.ids["workspaces"]["acme"],
                                           status="COMPLETE", limit=1)
        self.assertEqual([r["id"] for r in reports], [quiet, loud])
        self.assertEqual(pages, 2)
        verdicts = {r["id"]: r["verdict"]["passed"] for r in reports}
        self.assertEqual(verdicts, {loud: True, quiet: False})
        self.assertTrue(all(r["name"] for r in reports), reports)
        # The event record, oldest first: the quiet report's end, then following from a seq.
        events, _ = self.page_through("/_fake/events", kind="report.finished", report_id=quiet)
        self.assertEqual([e["report_id"] for e in events], [quiet])
        self.advance(1)
        moves, _ = self.page_through("/_fake/events", kind="clock.advanced", cursor=str(events[-1]["seq"]))
        self.assertEqual(len(moves), 2, moves)  # the 600 s move, then the 1 s one
        # A malformed cursor or filter is 400 in the control API's shape.
        for path in ("/_fake/reports?cursor=nope", "/_fake/events?kind=no.such.kind", "/_fake/workspaces?limit=0"):
            status, body = self.control("GET", path)
            self.assertEqual((status, body["error"]["code"]), (400, "validation_error"), path)

    def test_same_seed_and_calls_give_the_same_ids_after_reset(self):
        first = self.report_of_episode(0)
        self.control("POST", "/_fake/reset")
        self.assertEqual(self.report_of_episode(0), first)


if __name__ == "__main__":
    unittest.main()
