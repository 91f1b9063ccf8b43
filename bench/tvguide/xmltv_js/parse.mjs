// make bench (bench/tvguide/guide.py): the best of RUNS parses of FILE by @iptv/xmltv, in seconds, printed as JSON.
import { readFileSync } from "node:fs";
import { parseXmltv } from "@iptv/xmltv";

const [file, runs] = [process.argv[2], Number(process.argv[3] || 7)];
const text = readFileSync(file, "utf8");
let best = Infinity;
let programmes = 0;
for (let run = 0; run < runs; run++) {
  const started = process.hrtime.bigint();
  const guide = parseXmltv(text);
  best = Math.min(best, Number(process.hrtime.bigint() - started) / 1e9);
  programmes = guide.programmes.length;
}
console.log(JSON.stringify({ seconds: best, programmes }));
