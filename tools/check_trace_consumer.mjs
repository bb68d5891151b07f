// SPDX-License-Identifier: Apache-2.0
// Loads exported Chrome traces with Chrome DevTools' trace engine (npm @paulirish/trace_engine,
// the Performance panel's parser) and checks that it draws every flow of the file as an arrow
// between two kernel slices, the first ending before the second starts, on the tracks the
// flow's "s" and "f" events name. Run through tools/check_trace_consumer.sh.
import fs from 'node:fs';
import path from 'node:path';

const engineDir = process.env.IOS_TRACE_ENGINE;
const Trace = await import(path.join(engineDir, 'models/trace/trace.js'));
if (typeof globalThis.DOMRect === 'undefined')
  globalThis.DOMRect = class DOMRect { constructor(x, y, w, h) { Object.assign(this, {x, y, width: w, height: h}); } };

let failed = 0;
for (const file of process.argv.slice(2)) {
  const events = JSON.parse(fs.readFileSync(file, 'utf8')).traceEvents;
  const ends = new Map(); // flow id → {s, f}
  for (const e of events)
    if (e.ph === 's' || e.ph === 'f')
      (ends.get(e.id) ?? ends.set(e.id, {}).get(e.id))[e.ph] = e;
  const model = Trace.TraceModel.Model.createWithAllHandlers();
  await model.parse(events);
  const flows = model.parsedTrace(0).data.Flows.flows;
  const key = e => `${e.pid}/${e.tid}/${e.ts}`;
  const ns = us => Math.round(us * 1000); // times are µs rounded to ns
  const wanted = new Set([...ends.values()].map(({s, f}) => `${key(s)}>${key(f)}`));
  let wrong = 0;
  for (const flow of flows) {
    const [from, to] = [flow[0], flow[flow.length - 1]];
    const ok = flow.length === 2 && from.ph === 'X' && to.ph === 'X' && from.cat === 'kernel' &&
        to.cat === 'kernel' && ns(from.ts + from.dur) <= ns(to.ts) && wanted.delete(`${key(from)}>${key(to)}`);
    if (!ok) {
      ++wrong;
      console.log('  drawn wrong:', flow.map(e => `${e.name} (tid ${e.tid}, ts ${e.ts})`).join(' -> '));
    }
  }
  const missing = wanted.size;
  console.log(`${file}: ${ends.size} flows in the file, DevTools drew ${flows.length}: ` +
      `${wrong} between the wrong events, ${missing} not drawn`);
  if (wrong || missing) failed = 1;
}
process.exit(failed);
