#!/usr/bin/python3
"""inspect_visual_browser.py REPORT.html DATA_CHECK.json [SCREENSHOT.png]: drives headless Chromium over its
DevTools protocol (--remote-debugging-pipe: JSON messages on fds 3/4, no extra package) through a
`tosakit visual` report: the page loads with no console error or exception, shows a node for every op of the
float graph, every compared tensor colours its node, a click on a node opens the detail panel with its plots,
the search finds a layer, a row of the worst-layers table selects its layer, the slider recolours. Prints the
file size and the load time. DATA_CHECK.json: {"ops": number of op nodes expected, "layer": a layer to find}.
Exit 77 without chromium."""
import base64
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time


class Chromium:
    def __init__(self):
        exe = shutil.which("chromium")
        if not exe:
            print("SKIP: chromium missing (scripts/install-deps.sh)")
            sys.exit(77)
        self.profile = tempfile.mkdtemp()
        to_child_r, self.to_child_w = os.pipe()
        self.from_child_r, from_child_w = os.pipe()

        def fds():  # the pipe ends as the child's fds 3 and 4 (through copies: a pipe end may already be 3 or 4)
            a, b = os.dup(to_child_r), os.dup(from_child_w)
            os.dup2(a, 3)
            os.dup2(b, 4)

        self.proc = subprocess.Popen(
            [exe, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
             "--disable-component-update", "--disable-sync", "--no-first-run", "--remote-debugging-pipe",
             "--window-size=1400,900", f"--user-data-dir={self.profile}", "about:blank"],
            preexec_fn=fds, close_fds=False, stdout=subprocess.DEVNULL, stderr=open(os.path.join(self.profile, "stderr.txt"), "w"))
        os.close(to_child_r)
        os.close(from_child_w)
        self.buf = b""
        self.next_id = 0
        self.events = []
        self.session = None

    def send(self, method, params=None, session=True):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if session and self.session:
            msg["sessionId"] = self.session
        os.write(self.to_child_w, json.dumps(msg).encode() + b"\0")
        while True:
            m = self.read()
            if m.get("id") == self.next_id:
                if "error" in m:
                    raise RuntimeError(f"{method}: {m['error']}")
                return m.get("result", {})
            self.events.append(m)

    def read(self):
        while b"\0" not in self.buf:
            chunk = os.read(self.from_child_r, 1 << 20)
            if not chunk:
                raise RuntimeError("chromium closed the pipe")
            self.buf += chunk
        msg, self.buf = self.buf.split(b"\0", 1)
        return json.loads(msg)

    def wait_event(self, method, timeout=120):
        end = time.time() + timeout
        while time.time() < end:
            for i, e in enumerate(self.events):
                if e.get("method") == method:
                    return self.events.pop(i)
            self.events.append(self.read())
        raise RuntimeError(f"no {method} within {timeout} s")

    def eval(self, expr):
        r = self.send("Runtime.evaluate", {"expression": expr, "returnByValue": True})
        if "exceptionDetails" in r:
            raise RuntimeError(f"{expr}: {r['exceptionDetails']}")
        return r["result"].get("value")

    def close(self):
        try:
            self.send("Browser.close", session=False)
        except Exception:
            pass
        self.proc.wait(timeout=30)
        shutil.rmtree(self.profile, ignore_errors=True)


def errors(events):
    out = []
    for e in events:
        m, p = e.get("method"), e.get("params", {})
        if m == "Runtime.exceptionThrown":
            out.append(p["exceptionDetails"].get("exception", {}).get("description", str(p)))
        elif m == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
            out.append(str(p.get("args")))
        elif m == "Log.entryAdded" and p["entry"].get("level") == "error":
            out.append(p["entry"].get("text"))
    return out


def main():
    report, check_path = sys.argv[1], sys.argv[2]
    shot = sys.argv[3] if len(sys.argv) > 3 else None
    want = json.load(open(check_path))
    html = open(report).read()
    assert "http://" not in html.replace("http://www.w3.org", ""), "network reference in the page"
    assert "https://" not in html, "network reference in the page"
    c = Chromium()
    ok = True
    try:
        target = c.send("Target.createTarget", {"url": "about:blank"}, session=False)["targetId"]
        c.session = c.send("Target.attachToTarget", {"targetId": target, "flatten": True}, session=False)["sessionId"]
        for domain in ("Runtime", "Log", "Page"):
            c.send(domain + ".enable")
        start = time.time()
        c.send("Page.navigate", {"url": "file://" + os.path.abspath(report)})
        c.wait_event("Page.loadEventFired")
        load_s = time.time() - start
        print(f"{report}: {os.path.getsize(report)} bytes, loaded in {load_s:.2f} s")
        n_tensors = c.eval("D.tensors.length")
        op_nodes = c.eval("document.querySelectorAll('g.node[id^=\"op:\"]').length")
        coloured = c.eval("D.tensors.filter(function(t){var g=document.getElementById('op:'+t.name)||"
                          "document.getElementById('out:'+t.name);return g&&g.querySelector('polygon,ellipse,path')"
                          ".getAttribute('fill')!=='#dddddd';}).length")
        print(f"{op_nodes} op nodes (expected {want['ops']}), {n_tensors} tensors compared, {coloured} coloured")
        checks = [("every op has a node", op_nodes == want["ops"]),
                  ("every compared tensor coloured its node", coloured == n_tensors and n_tensors > 0)]
        # The layer to click: the given one when it was compared, else the middle compared tensor with an op node.
        layer = c.eval(f"(function(){{var l={json.dumps(want['layer'])};if(byName[l])return l;"
                       "var ts=D.tensors.filter(function(t){return document.getElementById('op:'+t.name);});"
                       "return ts[Math.floor(ts.length/2)].name;})()")
        c.eval(f"document.getElementById('op:'+{json.dumps(layer)}).dispatchEvent(new MouseEvent('click',{{bubbles:true}}))")
        detail = c.eval("(function(d){return {shown:getComputedStyle(d).display!=='none',name:d.dataset.name,"
                        "plots:d.querySelectorAll('svg.plot').length,text:d.textContent};})"
                        "(document.getElementById('detail'))")
        checks.append(("a click opens the detail panel with its 3 plots",
                       detail["shown"] and detail["name"] == layer and detail["plots"] == 3 and "cosine" in detail["text"]))
        hits = c.eval(f"document.getElementById('q').value={json.dumps(layer)};tkView.find().length")
        checks.append(("the search finds the layer", hits >= 1 and c.eval(
            f"document.getElementById('op:'+{json.dumps(layer)}).classList.contains('hit')")))
        rows = c.eval("document.querySelectorAll('#worst tbody tr').length")
        worst = c.eval("var r=document.querySelector('#worst tbody tr');r.click();r.dataset.name")
        checks.append(("the table lists every tensor and a row selects its layer",
                       rows == n_tensors and c.eval("document.getElementById('detail').dataset.name") == worst))
        before = c.eval("document.querySelectorAll('g.node polygon[fill=\"#8fd19e\"],g.node ellipse[fill=\"#8fd19e\"]').length")
        c.eval("var s=document.getElementById('tol');s.value='1';s.dispatchEvent(new Event('input'))")
        after = c.eval("document.querySelectorAll('g.node polygon[fill=\"#8fd19e\"],g.node ellipse[fill=\"#8fd19e\"]').length")
        checks.append(("the slider recolours (tolerance 1: fewer green)", after < before))
        c.eval("var s=document.getElementById('tol');s.value=String(D.min_cosine);s.dispatchEvent(new Event('input'))")
        if shot:
            c.eval(f"tkView.focus(show({json.dumps(layer)}))")
            png = c.send("Page.captureScreenshot", {"format": "png"})["data"]
            open(shot, "wb").write(base64.b64decode(png))
        errs = errors(c.events)
        checks.append(("no console error or exception", not errs))
        for e in errs:
            print("console:", e)
        for name, passed in checks:
            print(("ok: " if passed else "FAIL: ") + name)
            ok = ok and passed
    finally:
        c.close()
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
