// The llmist page: renders a run's AG-UI events (from POST /agui or a live run's replay) and
// a stored conversation's messages. Everything the model or a gadget wrote is put in the page
// as text (textContent, text nodes), never as HTML.
"use strict";

const $ = (id) => document.getElementById(id);
const LONG_RESULT = 600; // characters after which a result is folded
const IMAGE_TYPES = /^image\/(png|jpeg|gif|webp)$/;

const page = {
  token: null,
  threadId: null,
  runId: null, // the live run shown, if any
  state: { calls: {}, usage: { inputTokens: 0, outputTokens: 0 }, cost: 0 },
  // Each run's tokens and cost shown in this conversation, by run id: the top bar shows their
  // sum. A run's state starts at zero (a run a decision resumes is a new run), and a run
  // followed again replays its events, so keying by run counts each run once.
  runs: new Map(),
  starters: [], // the example prompts the empty page offers (from /api/info)
  text: null, // the Text node the streaming message appends to
  reasoning: null,
  cards: new Map(), // invocation id -> card element
  attachment: null, // {mimeType, value} of an image to send
  follow: null, // AbortController of the stream followed
};

// --- requests -------------------------------------------------------------------------------

function headers(extra) {
  const h = Object.assign({ "Content-Type": "application/json" }, extra || {});
  if (page.token) h.Authorization = "Bearer " + page.token;
  return h;
}

async function api(path, options) {
  const response = await fetch(path, Object.assign({ headers: headers() }, options || {}));
  const body = await response.json().catch(() => ({}));
  if (!response.ok) throw new Error(body.error || response.status + " " + response.statusText);
  return body;
}

// Reads an SSE response and hands each event's JSON to onEvent.
async function readEvents(response, onEvent) {
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    let cut;
    while ((cut = buffer.indexOf("\n\n")) >= 0) {
      const block = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 2);
      const data = block.split("\n").filter((l) => l.startsWith("data:")).map((l) => l.slice(5).trimStart()).join("\n");
      if (data) onEvent(JSON.parse(data));
    }
  }
}

async function stream(path, body) {
  if (page.follow) page.follow.abort();
  const control = new AbortController();
  page.follow = control;
  const options = { method: body ? "POST" : "GET", headers: headers(), signal: control.signal };
  if (body) options.body = JSON.stringify(body);
  try {
    const response = await fetch(path, options);
    if (!response.ok) {
      const error = await response.json().catch(() => ({}));
      throw new Error(error.error || response.status + " " + response.statusText);
    }
    await readEvents(response, handle);
  } catch (err) {
    if (err.name !== "AbortError") showBanner(String(err.message || err));
  } finally {
    if (page.follow === control) page.follow = null;
  }
}

// --- small DOM helpers ----------------------------------------------------------------------

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined && text !== null) node.textContent = text;
  return node;
}

function add(node) {
  const box = $("transcript");
  const atBottom = box.scrollHeight - box.scrollTop - box.clientHeight < 40;
  box.appendChild(node);
  if (atBottom) box.scrollTop = box.scrollHeight;
  return node;
}

function showBanner(message) {
  $("banner").textContent = message;
  $("banner").hidden = !message;
}

function image(mimeType, base64) {
  if (!IMAGE_TYPES.test(mimeType || "")) return el("span", "error", "[image of unsupported type]");
  const img = el("img");
  img.alt = "image";
  img.src = "data:" + mimeType + ";base64," + base64.replace(/[^A-Za-z0-9+/=]/g, "");
  return img;
}

function contentNodes(content) {
  if (typeof content === "string") return [document.createTextNode(content)];
  return (content || []).map((part) =>
    part.type === "image" && part.source && part.source.type === "data"
      ? image(part.source.mimeType, part.source.value)
      : document.createTextNode(part.text || ""),
  );
}

// --- messages -------------------------------------------------------------------------------

function userMessage(content) {
  const box = el("div", "msg user");
  contentNodes(content).forEach((n) => box.appendChild(n));
  return add(box);
}

function appendText(delta) {
  if (!page.text) {
    const box = add(el("div", "msg assistant"));
    page.text = box.appendChild(document.createTextNode(""));
  }
  page.text.appendData(delta);
  const box = $("transcript");
  box.scrollTop = box.scrollHeight;
}

function appendReasoning(delta) {
  if (!page.reasoning) {
    const details = add(el("details", "reasoning"));
    details.appendChild(el("summary", null, "Reasoning"));
    page.reasoning = details.appendChild(el("pre")).appendChild(document.createTextNode(""));
  }
  page.reasoning.appendData(delta);
}

// --- call cards -----------------------------------------------------------------------------

function card(id, gadget) {
  let node = page.cards.get(id);
  if (node) return node;
  node = el("div", "card");
  node.dataset.callId = id;
  node.id = "call-" + id;
  const head = node.appendChild(el("div", "card-head"));
  head.appendChild(el("span", "name", gadget || "?"));
  head.appendChild(el("span", "iid", id));
  head.appendChild(el("span", "meta"));
  head.appendChild(el("span", "status", "streaming"));
  node.appendChild(el("div", "deps")).hidden = true;
  node.appendChild(el("div", "args"));
  node.argsText = "";
  page.cards.set(id, node);
  page.text = null;
  page.reasoning = null;
  return add(node);
}

// The arguments so far: the JSON text closed as far as needed to parse it, else the raw text.
function parsePartial(text) {
  for (const tail of ["", '"}', "}"]) {
    try {
      return JSON.parse(text + tail);
    } catch (_) {
      /* try the next closing */
    }
  }
  return null;
}

function renderArgs(node, args) {
  const box = node.querySelector(".args");
  if (args === null || typeof args !== "object") {
    box.replaceChildren(el("pre", "value", node.argsText));
    return;
  }
  const rows = Object.entries(args).map(([key, value]) => {
    const row = el("div", "arg");
    row.dataset.key = key;
    row.appendChild(el("span", "key", key));
    row.appendChild(el("pre", "value", typeof value === "string" ? value : JSON.stringify(value, null, 1)));
    return row;
  });
  box.replaceChildren(...rows);
}

// Arguments are rendered at most once a frame: a long value arrives in many small deltas, and
// parsing the whole text again for each would make the page slow down as the value grows.
function addArgs(id, delta) {
  const node = page.cards.get(id);
  if (!node) return;
  node.argsText += delta;
  if (node.renderPending) return;
  node.renderPending = true;
  requestAnimationFrame(() => {
    node.renderPending = false;
    renderArgs(node, parsePartial(node.argsText));
  });
}

function showResult(id, content) {
  const node = page.cards.get(id);
  if (!node) return;
  let box = node.querySelector(".result");
  if (!box) box = node.appendChild(el("div", "result"));
  const text = typeof content === "string" ? content : (content || []).filter((p) => p.type === "text").map((p) => p.text).join("");
  const pre = el("pre", null, text);
  if (text.length > LONG_RESULT || text.split("\n").length > 12) {
    const details = el("details");
    details.appendChild(el("summary", null, "Result (" + text.length + " characters)"));
    details.appendChild(pre);
    box.replaceChildren(details);
  } else {
    box.replaceChildren(pre);
  }
  if (typeof content !== "string") contentNodes(content.filter((p) => p.type === "image")).forEach((n) => box.appendChild(n));
}

function updateCard(id, record) {
  const node = card(id, record.gadget);
  node.dataset.status = record.status;
  node.querySelector(".status").textContent = record.status.replace("_", " ");
  const meta = [];
  if (record.durationMs !== undefined) meta.push(record.durationMs >= 1000 ? (record.durationMs / 1000).toFixed(1) + " s" : Math.round(record.durationMs) + " ms");
  if (record.cost) meta.push("$" + record.cost.toFixed(4));
  node.querySelector(".meta").textContent = meta.join(" · ");
  const deps = node.querySelector(".deps");
  deps.hidden = !(record.dependencies && record.dependencies.length);
  if (!deps.hidden && deps.childElementCount !== record.dependencies.length) {
    deps.replaceChildren(document.createTextNode("after "));
    record.dependencies.forEach((dep) => {
      const link = el("a", null, dep);
      link.href = "#call-" + dep;
      link.addEventListener("click", (e) => {
        e.preventDefault();
        const target = page.cards.get(dep);
        if (target) {
          target.scrollIntoView({ block: "center" });
          target.classList.add("flash");
          setTimeout(() => target.classList.remove("flash"), 900);
        }
      });
      deps.appendChild(link);
    });
  }
  if (record.error && !node.querySelector(".result")) node.appendChild(el("div", "result error", record.error));
  const approval = node.querySelector(".approval");
  if (record.status === "awaiting_approval" && !approval) node.appendChild(approvalBox(id, record));
  if (record.status !== "awaiting_approval" && approval) {
    approval.remove();
    settlePause();
  }
}

// "Waiting for your approval" goes once every call on the page that waited has its decision.
function settlePause() {
  if (document.querySelector(".approval:not([data-decided])")) return;
  document.querySelectorAll(".run-paused").forEach((n) => n.remove());
}

function approvalBox(id, record) {
  const box = el("div", "approval");
  box.appendChild(el("span", "why", "Needs your approval: " + (record.reason || "")));
  const run = record.runId || page.runId;
  const call = encodeURIComponent(record.invocationId || id);
  // A call the conversation's session keeps waiting is decided on the conversation (its run has
  // ended; the answer names the run that resumes it); one that waits in a live run, on the run.
  const url = record.threadId
    ? "/api/threads/" + encodeURIComponent(record.threadId) + "/approvals/" + call
    : "/api/runs/" + encodeURIComponent(run) + "/approvals/" + call;
  const decide = async (body) => {
    box.querySelectorAll("button").forEach((b) => (b.disabled = true));
    try {
      const answer = await api(url, { method: "POST", body: JSON.stringify(body) });
      box.dataset.decided = body.action;
      if (record.threadId) box.querySelector(".why").textContent = body.action === "deny" ? "Denied" : "Approved";
      settlePause();
      if (answer.resumed) stream("/api/threads/" + encodeURIComponent(record.threadId) + "/live?run=" + encodeURIComponent(answer.resumed));
    } catch (err) {
      showBanner(String(err.message || err));
      box.querySelectorAll("button").forEach((b) => (b.disabled = false));
    }
  };
  const approve = box.appendChild(el("button", "primary approve", "Approve"));
  approve.type = "button";
  approve.addEventListener("click", () => decide({ action: "approve" }));
  const edit = box.appendChild(el("button", "edit", "Edit"));
  edit.type = "button";
  const deny = box.appendChild(el("button", "danger deny", "Deny"));
  deny.type = "button";
  deny.addEventListener("click", () => decide({ action: "deny", reason: "" }));
  edit.addEventListener("click", () => {
    if (box.querySelector("textarea")) return;
    const area = box.appendChild(el("textarea"));
    area.rows = 6;
    area.value = JSON.stringify(record.parameters || {}, null, 2);
    const run = box.appendChild(el("button", "primary run-edited", "Run with these"));
    run.type = "button";
    const problem = box.appendChild(el("span", "error"));
    run.addEventListener("click", () => {
      let parameters;
      try {
        parameters = JSON.parse(area.value);
      } catch (err) {
        problem.textContent = "Not valid JSON: " + err.message;
        return;
      }
      if (!parameters || typeof parameters !== "object" || Array.isArray(parameters)) {
        problem.textContent = "The parameters must be a JSON object";
        return;
      }
      decide({ action: "edit", parameters });
    });
  });
  return box;
}

// --- state (AG-UI STATE_SNAPSHOT / STATE_DELTA) -------------------------------------------------

function applyPatch(state, ops) {
  for (const op of ops) {
    const keys = op.path.split("/").slice(1).map((k) => k.replace(/~1/g, "/").replace(/~0/g, "~"));
    let target = state;
    for (const key of keys.slice(0, -1)) target = target[key] = target[key] || {};
    const last = keys[keys.length - 1];
    if (op.op === "remove") delete target[last];
    else target[last] = op.value;
  }
}

function renderState(paths) {
  const s = page.state;
  for (const path of paths) {
    const m = /^\/calls\/(.+)$/.exec(path);
    if (m) {
      const id = m[1].replace(/~1/g, "/").replace(/~0/g, "~");
      updateCard(id, s.calls[id]);
    }
  }
  if (page.runId) {
    const usage = s.usage || {};
    page.runs.set(page.runId, { input: usage.inputTokens || 0, output: usage.outputTokens || 0, cost: s.cost || 0 });
  }
  showUsage();
}

// The conversation's tokens and cost: the sum over the runs this page showed (a stored
// conversation's earlier runs are not counted, the session does not keep their usage).
function showUsage() {
  if (!page.runs.size) {
    $("usage").textContent = "";
    return;
  }
  let input = 0;
  let output = 0;
  let cost = 0;
  for (const run of page.runs.values()) {
    input += run.input;
    output += run.output;
    cost += run.cost;
  }
  $("usage").textContent = input + " in · " + output + " out tokens · $" + cost.toFixed(4);
}

// --- AG-UI events ---------------------------------------------------------------------------

function handle(event) {
  switch (event.type) {
    case "RUN_STARTED":
      page.runId = event.runId;
      hideStarters();
      $("stop").hidden = false;
      $("stop").disabled = false;
      refreshThreads();
      break;
    case "TEXT_MESSAGE_START":
      page.text = null;
      break;
    case "TEXT_MESSAGE_CONTENT":
      appendText(event.delta);
      break;
    case "TEXT_MESSAGE_END":
      page.text = null;
      break;
    case "REASONING_MESSAGE_CONTENT":
      appendReasoning(event.delta);
      break;
    case "REASONING_END":
      page.reasoning = null;
      break;
    case "TOOL_CALL_START":
      card(event.toolCallId, event.toolCallName);
      break;
    case "TOOL_CALL_ARGS":
      addArgs(event.toolCallId, event.delta);
      break;
    case "TOOL_CALL_RESULT":
      showResult(event.toolCallId, event.content);
      break;
    case "STATE_SNAPSHOT":
      page.state = Object.assign({ calls: {}, usage: {}, cost: 0 }, event.snapshot);
      renderState(Object.keys(page.state.calls).map((id) => "/calls/" + id));
      break;
    case "STATE_DELTA":
      applyPatch(page.state, event.delta);
      renderState(event.delta.map((op) => op.path));
      break;
    case "STEP_STARTED":
      // A fallback model's call starts before the switch is announced: keep where the previous began.
      page.previousStart = page.responseStart;
      page.responseStart = $("transcript").childElementCount;
      break;
    case "CUSTOM":
      if (event.name === "llmist.approval_requested") {
        const record = page.state.calls[event.value.toolCallId];
        if (record) record.runId = event.value.runId;
        if (record && event.value.threadId) record.threadId = event.value.threadId;
      } else if (event.name === "llmist.guardrail") {
        guardrailNote(event.value);
      } else if (event.name === "llmist.model_fallback") {
        fallbackNote(event.value);
      }
      break;
    case "RUN_FINISHED": {
      const result = event.result || {};
      const cancelled = event.outcome && event.outcome.type === "cancelled";
      const reason = result.stopReason || "no_calls";
      const plain = reason === "no_calls" || reason === "task_complete";
      const trip = result.tripwire;
      if (reason === "awaiting_approval" && !cancelled) {
        add(el("div", "run-paused", "Waiting for your approval"));
      } else {
        const text = cancelled
          ? "Stopped"
          : trip
            ? "Stopped by guardrail " + trip.name + ": " + (trip.reason || "tripped")
            : plain
              ? "Done"
              : "Done (stopped by " + reason.replace("_", " ") + ")";
        add(el("div", "run-end" + (trip ? " tripped" : ""), text));
      }
      endRun();
      break;
    }
    case "RUN_ERROR":
      add(el("div", "run-end error", "The run failed: " + event.message));
      endRun();
      break;
    default:
      break;
  }
}

// A guardrail's check that did something (passes are not shown).
function guardrailNote(value) {
  if (value.outcome === "pass") return;
  const verb = { tripwire: "tripped", refuse: "refused", rewrite: "rewrote" }[value.outcome] || value.outcome;
  const what = value.gadget ? value.gadget + " (" + value.toolCallId + ")" : value.kind.replace("_", " ");
  const note = add(el("div", "note guardrail " + value.outcome));
  note.dataset.guardrail = value.name;
  note.textContent = "Guardrail " + value.name + " " + verb + " " + what + (value.reason ? ": " + value.reason : "");
}

// A model failed and the next one took over; with a restart, the text shown of the response is void.
function fallbackNote(value) {
  page.text = null;
  if (value.restart) {
    // The broken response's text: from its step's start to the next model's (which began first).
    const nodes = Array.from($("transcript").children).slice(page.previousStart || 0, page.responseStart);
    nodes.filter((n) => n.classList.contains("assistant")).forEach((n) => n.classList.add("void"));
  }
  const then = value.restart ? " starts the answer over" : " answers";
  const note = add(el("div", "note fallback"));
  note.textContent = value.failed + " failed (" + value.error + "); " + value.model + then;
}

function endRun() {
  page.runId = null;
  page.text = null;
  page.reasoning = null;
  $("stop").hidden = true;
  $("send").disabled = false;
  refreshThreads();
}

// --- conversations --------------------------------------------------------------------------

function newThreadId() {
  const stamp = new Date().toISOString().replace(/[-:T]/g, "").slice(0, 14);
  return "chat-" + stamp + "-" + Math.random().toString(36).slice(2, 6);
}

async function refreshThreads() {
  try {
    const { threads } = await api("/api/threads");
    const list = $("threads");
    list.replaceChildren(
      ...threads.map((t) => {
        const li = el("li", (t.id === page.threadId ? "current" : "") + (t.live ? " live" : ""), t.id);
        li.dataset.threadId = t.id;
        li.addEventListener("click", () => openThread(t.id));
        return li;
      }),
    );
  } catch (err) {
    showBanner(String(err.message || err));
  }
}

function clearTranscript() {
  if (page.follow) page.follow.abort();
  $("transcript").replaceChildren();
  page.cards.clear();
  page.text = null;
  page.reasoning = null;
  page.runId = null;
  page.state = { calls: {}, usage: { inputTokens: 0, outputTokens: 0 }, cost: 0 };
  page.runs.clear();
  showUsage();
  $("stop").hidden = true;
}

function setThread(id) {
  page.threadId = id;
  const url = new URL(window.location.href);
  url.searchParams.set("thread", id);
  url.hash = "";
  window.history.replaceState(null, "", url);
}

async function openThread(id) {
  clearTranscript();
  setThread(id);
  showBanner("");
  try {
    const view = await api("/api/threads/" + encodeURIComponent(id));
    renderHistory(view);
    if (!view.messages.length && !view.liveRun) showStarters();
    refreshThreads();
    if (view.liveRun) stream("/api/threads/" + encodeURIComponent(id) + "/live");
  } catch (err) {
    showBanner(String(err.message || err));
  }
}

function renderHistory(view) {
  for (const m of view.messages) {
    if (m.role === "user") userMessage(m.content);
    else if (m.role === "assistant") {
      if (m.content) {
        appendText(m.content);
        page.text = null;
      }
      for (const call of m.toolCalls || []) {
        const node = card(call.id, call.function.name);
        node.argsText = call.function.arguments;
        renderArgs(node, parsePartial(call.function.arguments));
      }
    } else if (m.role === "tool") showResult(m.toolCallId, m.content);
  }
  Object.assign(page.state.calls, view.calls);
  for (const [id, record] of Object.entries(view.calls)) {
    // A waiting call's card has the id its stored call was parsed with again; a resumed run names it by the stored id.
    if (record.invocationId && record.invocationId !== id) page.cards.set(record.invocationId, page.cards.get(id));
  }
  renderState(Object.keys(view.calls).map((id) => "/calls/" + id));
}

// --- sending --------------------------------------------------------------------------------

async function send(event) {
  event.preventDefault();
  const text = $("prompt").value.trim();
  if (!text && !page.attachment) return;
  if (!page.threadId) setThread(newThreadId());
  const content = page.attachment
    ? [{ type: "text", text }, { type: "image", source: { type: "data", value: page.attachment.value, mimeType: page.attachment.mimeType } }]
    : text;
  $("prompt").value = "";
  page.attachment = null;
  $("image").value = "";
  $("attached").textContent = "";
  showBanner("");
  hideStarters();
  userMessage(content);
  $("send").disabled = true;
  const runId = "run-" + Date.now().toString(36) + Math.random().toString(36).slice(2, 6);
  const messageId = "msg-" + Math.random().toString(36).slice(2, 10);
  await stream("/agui", { threadId: page.threadId, runId, messages: [{ id: messageId, role: "user", content }], tools: [], context: [], state: {} });
  $("send").disabled = false;
}

function attach() {
  const file = $("image").files[0];
  if (!file) return;
  const reader = new FileReader();
  reader.onload = () => {
    const [head, value] = String(reader.result).split(",", 2);
    page.attachment = { mimeType: head.slice(5).split(";")[0], value };
    $("attached").textContent = file.name;
  };
  reader.readAsDataURL(file);
}

async function start() {
  const hash = new URLSearchParams(window.location.hash.slice(1));
  if (hash.get("token")) sessionStorage.setItem("llmist-token", hash.get("token"));
  page.token = sessionStorage.getItem("llmist-token");
  if (window.location.hash) window.history.replaceState(null, "", window.location.pathname + window.location.search);
  $("composer").addEventListener("submit", send);
  $("prompt").addEventListener("keydown", (e) => {
    if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) send(e);
  });
  $("image").addEventListener("change", attach);
  $("new-thread").addEventListener("click", () => {
    clearTranscript();
    setThread(newThreadId());
    refreshThreads();
    showStarters();
  });
  $("stop").addEventListener("click", async () => {
    if (!page.runId) return;
    $("stop").disabled = true;
    try {
      await api("/api/runs/" + encodeURIComponent(page.runId) + "/stop", { method: "POST" });
    } catch (err) {
      showBanner(String(err.message || err));
    }
  });
  try {
    const info = await api("/api/info");
    $("model").textContent = info.model;
    const guarded = info.guarded.length ? " (" + info.guarded.join(", ") + (info.guarded.length === 1 ? " needs" : " need") + " approval)" : "";
    $("gadgets").textContent = info.gadgets.length + (info.gadgets.length === 1 ? " gadget" : " gadgets") + guarded;
    page.starters = info.starters || [];
  } catch (err) {
    showBanner(String(err.message || err));
  }
  const thread = new URLSearchParams(window.location.search).get("thread");
  if (thread) await openThread(thread);
  else {
    showStarters();
    refreshThreads();
  }
}

// --- the empty page's example prompts -------------------------------------------------------

// On an empty conversation: a line saying what to do, and the example prompts built from the
// agent's gadgets. A click puts one in the message box (not sent: it may hold a <placeholder>,
// which is selected so that typing replaces it).
function showStarters() {
  hideStarters();
  if ($("transcript").childElementCount) return;
  const box = add(el("div", "starters"));
  box.appendChild(el("p", "hint", page.starters.length ? "Ask the agent anything, or start from one of these:" : "Ask the agent anything."));
  for (const starter of page.starters) {
    const button = box.appendChild(el("button", "starter"));
    button.type = "button";
    button.dataset.gadget = starter.gadget;
    button.appendChild(el("span", "prompt", starter.prompt));
    if (starter.description) button.appendChild(el("span", "about", starter.description));
    button.addEventListener("click", () => {
      const prompt = $("prompt");
      prompt.value = starter.prompt;
      prompt.focus();
      const hole = /<[^<>]*>/.exec(starter.prompt);
      if (hole) prompt.setSelectionRange(hole.index, hole.index + hole[0].length);
      else prompt.setSelectionRange(starter.prompt.length, starter.prompt.length);
    });
  }
}

function hideStarters() {
  document.querySelectorAll("#transcript .starters").forEach((n) => n.remove());
}

document.addEventListener("DOMContentLoaded", start);
