// The chat page: each Send posts the question and streams the answer into the page, recorded by
// recorder/browser.js from the submit event to the paint after the answer's last DOM update. (The server serves
// this file at /examples/chat/page.js, so the relative import below is /recorder/browser.js in the browser too.)
import { pageRecorder } from "../../recorder/browser.js";

const rec = pageRecorder({ endpoint: "/_goodput" });
const form = document.getElementById("ask");
const box = document.getElementById("q");
const log = document.getElementById("log");
/** What the page did, for whoever drives it (examples/chat/drive.ts reads it). */
const stats = { sends: 0, answered: 0, failed: 0 };

function line(cls, text) {
  const el = document.createElement("div");
  el.className = cls;
  el.textContent = text;
  log.append(el);
  return el;
}

async function ask(question, task) {
  line("you", question);
  const answer = line("bot", "");
  try {
    task.sent();
    const res = await fetch("/api/chat", {
      method: "POST",
      headers: { "content-type": "application/json", ...task.headers() },
      body: JSON.stringify({ text: question }),
    });
    task.firstByte();
    if (!res.ok || !res.body) throw new Error(`HTTP ${res.status}`);
    const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
    for (let first = true;;) {
      const { value, done } = await reader.read();
      if (done) break;
      answer.textContent += value;
      if (first && value) {
        first = false;
        task.firstToken(); // the first token is in the DOM: its paint is the user's first token
      }
    }
    task.lastByte();
    answer.classList.add("done"); // the final DOM update
    task.rendered();
    stats.answered++;
  } catch (e) {
    const why = e instanceof Error ? e.message : String(e);
    answer.classList.add("failed");
    answer.textContent += ` (failed: ${why})`;
    task.fail(why);
    stats.failed++;
  }
}

form.addEventListener("submit", (event) => {
  event.preventDefault();
  const question = box.value.trim();
  if (!question) return;
  const task = rec.begin(event); // the user's action: event.timeStamp
  stats.sends++;
  box.value = "";
  void ask(question, task);
});

Object.assign(globalThis, { chat: { stats, recorder: rec } });
