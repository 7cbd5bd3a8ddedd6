// Renders TeX math to MathML with Temml: one JSON request per input line, one JSON answer per output line.
"use strict";
const readline = require("readline");
const temml = require("temml");

const input = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
input.on("line", (line) => {
  let answer;
  try {
    const request = JSON.parse(line);
    const html = temml.renderToString(request.tex, {
      displayMode: Boolean(request.display),
      // Inline math may break after a top-level relation or operator, as TeX breaks it: a long
      // formula in a paragraph wraps on a phone instead of widening the page.
      wrap: "tex",
      throwOnError: true,
    });
    answer = { html };
  } catch (error) {
    answer = { error: String((error && error.message) || error) };
  }
  process.stdout.write(JSON.stringify(answer) + "\n");
});
