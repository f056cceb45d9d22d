/**
 * The chat page as the driver sees it: opened in Chromium, its Send button found, questions typed into its text box,
 * and its own counts read back (what page.js handled and what its recorder posted).
 *
 * @module
 */
import type { Browser, Page } from "./cdp.ts";

/** An open chat page: where its Send button is, and the chain its clicks run in (one at a time, in order). */
export interface ChatPage {
  page: Page;
  send: { x: number; y: number };
  chain: Promise<void>;
}

/** What the pages did: submits handled, answers rendered, failures; tasks begun, records posted, dropped, unsampled. */
export interface PageCounts {
  sends: number;
  answered: number;
  failed: number;
  begun: number;
  posted: number;
  dropped: number;
  sampled_out: number;
}

const COUNTS = `(() => { const s = chat.recorder.stats(); return { ...chat.stats, begun: s.begun, posted: s.posted,
  dropped: s.dropped, sampled_out: s.sampled_out }; })()`;

/**
 * Opens the app's page and waits (at most 5 s) for its recorder's clock estimate (it probes at start), finds the
 * Send button's centre, and types the first question when there is one.
 */
export async function openChatPage(browser: Browser, url: string, question: string | null): Promise<ChatPage> {
  const page = await browser.newPage(url);
  await page.evaluate(`(async () => { for (let i = 0; i < 100 && !chat.recorder.clock(); i++)
    await new Promise((r) => setTimeout(r, 50)); })()`);
  const send = await page.evaluate<{ x: number; y: number }>(`(() => {
    const r = document.getElementById("send").getBoundingClientRect();
    return { x: r.left + r.width / 2, y: r.top + r.height / 2 }; })()`);
  if (question) await typeQuestion(page, question);
  return { page, send, chain: Promise.resolve() };
}

/** Types a question into the page's text box, as a user would, before the click that sends it. */
export async function typeQuestion(page: Page, question: string): Promise<void> {
  await page.evaluate(`document.getElementById("q").focus()`);
  await page.type(question);
}

/** The counts of every page, added up. */
export async function pageCounts(pages: readonly ChatPage[]): Promise<PageCounts> {
  const all = await Promise.all(pages.map((d) => d.page.evaluate<PageCounts>(COUNTS)));
  const sum: PageCounts = { sends: 0, answered: 0, failed: 0, begun: 0, posted: 0, dropped: 0, sampled_out: 0 };
  for (const c of all) for (const k of Object.keys(sum) as (keyof PageCounts)[]) sum[k] += c[k];
  return sum;
}
