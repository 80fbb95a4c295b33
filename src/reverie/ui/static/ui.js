// reverie ui: highlight cited lines, live updates over server-sent events, background job progress.
// Plain JavaScript, no framework; the server renders every page, this only refreshes them.
(function () {
  "use strict";
  var body = document.body;
  var agent = body.dataset.agent;
  var csrf = (document.querySelector('meta[name="csrf-token"]') || {}).content || "";

  // #L5-L9 (or #L5): highlight those lines of a memory file and bring them into view.
  function highlightFromHash() {
    var m = /^#L(\d+)(?:-L?(\d+))?$/.exec(location.hash);
    if (!m) return;
    var a = parseInt(m[1], 10), b = parseInt(m[2] || m[1], 10);
    var rows = document.querySelectorAll("table.md tr");
    rows.forEach(function (tr) {
      var n = parseInt(tr.id.slice(1), 10);
      if (n >= Math.min(a, b) && n <= Math.max(a, b)) tr.classList.add("hl");
    });
    var first = document.getElementById("L" + Math.min(a, b));
    if (first) first.scrollIntoView({ block: "center" });
  }

  // Replace the page's #live region with a fresh copy from the server (same URL).
  function refresh() {
    var live = document.getElementById("live");
    if (!live) return;
    fetch(location.href, { headers: { Accept: "text/html" }, credentials: "same-origin" })
      .then(function (r) { return r.ok ? r.text() : null; })
      .then(function (html) {
        if (!html) return;
        var fresh = new DOMParser().parseFromString(html, "text/html").getElementById("live");
        if (fresh) {
          live.replaceWith(document.importNode(fresh, true));
          highlightFromHash();
          body.dataset.refreshed = String((parseInt(body.dataset.refreshed || "0", 10) + 1));
        }
      });
  }

  // A background job (re-index, Dreaming preview) in the box of this page that shows its kind.
  function jobBox(job) {
    var boxes = document.querySelectorAll(".job[data-kinds]");
    for (var i = 0; i < boxes.length; i++) {
      if (boxes[i].dataset.kinds.split(" ").indexOf(job.kind) >= 0) return boxes[i];
    }
    return null;
  }

  function showJob(job) {
    var box = job && jobBox(job);
    if (!box) return null;
    // an answer that arrives late (the POST's) never undoes a newer state already shown
    if (box.dataset.jobId === job.id && parseInt(box.dataset.version || "-1", 10) > job.version) return null;
    box.dataset.jobId = job.id;
    box.dataset.version = String(job.version);
    box.classList.remove("hidden");
    var bar = box.querySelector(".job-bar"), text = box.querySelector(".job-text");
    bar.max = job.total || 1;
    bar.value = job.state === "running" ? job.done : (job.total || 1);
    var line = (box.dataset.label || job.kind) + " " + job.state;
    if (job.state === "running") line += ": " + job.stage + " " + job.done + "/" + job.total;
    if (job.summary) line += ": " + job.summary;
    if (job.error) line += ": " + job.error;
    text.textContent = line;
    box.dataset.state = job.state;
    return box;
  }

  function listen() {
    var kind = body.dataset.live;
    if (!kind || !agent || !window.EventSource) return;
    var es = new EventSource("/a/" + encodeURIComponent(agent) + "/events");
    es.addEventListener("change", function (ev) {
      var data = JSON.parse(ev.data);
      if (kind === "file" && data.paths.length && data.paths.indexOf(body.dataset.path) < 0) return;
      refresh();
    });
    es.addEventListener("job", function (ev) {
      var job = JSON.parse(ev.data);
      if (showJob(job) && job.state !== "running") {
        // the refreshed region carries the finished job (and a preview's report) from the server
        refresh();
      }
    });
    window.addEventListener("pagehide", function () { es.close(); });
  }

  // Buttons that start a background job (re-index, Dreaming preview) work without leaving the
  // page (a plain POST works too, without script). The answer may name the page's address for
  // that job, so a refresh when it ends shows its result. (Delegated: these forms live in the
  // #live region, which a refresh replaces.)
  function jobsInPlace() {
    document.addEventListener("submit", function (ev) {
      var form = ev.target;
      if (!form.hasAttribute("data-job")) return;
      ev.preventDefault();
      var data = new URLSearchParams(new FormData(form));
      fetch(form.action, { method: "POST", body: data, credentials: "same-origin",
                           headers: { Accept: "application/json", "X-CSRF-Token": csrf } })
        .then(function (r) { return r.json(); })
        .then(function (d) {
          if (d.url) history.replaceState(null, "", d.url);
          showJob(d.job);
        });
    });
  }

  highlightFromHash();
  window.addEventListener("hashchange", highlightFromHash);
  listen();
  jobsInPlace();
})();
