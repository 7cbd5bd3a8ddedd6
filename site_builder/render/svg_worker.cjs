// Sanitizes the archive's SVG images with DOMPurify (on jsdom's DOM), run inside the sandbox.
//
// Reads a JSON array of SVG texts on standard input and writes a JSON array of results, one per
// text: {"svg": cleaned} or {"error": message, "line": n}. A cleaned image keeps its drawing; it
// loses scripts, event handlers, foreignObject, animation of attributes, and every reference to
// another document (links, images or styles from elsewhere): only "#fragment" references and
// data: URLs of raster images stay. "removed" names what went that a browser would run or load.

"use strict";

const { JSDOM } = require("jsdom");
const createDOMPurify = require("dompurify");

const SVG_NS = "http://www.w3.org/2000/svg";
const RASTER_DATA = /^data:image\/(png|jpeg|gif|webp);base64,[a-z0-9+/=\s]*$/i;
const REFERENCES = new Set(["href", "xlink:href", "src"]);
const ACTIVE_ELEMENTS = new Set(["script", "foreignobject", "iframe", "embed", "object", "animate", "set",
  "animatemotion", "animatetransform", "handler", "listener"]);

const window = new JSDOM("").window;
const purify = createDOMPurify(window);
let removed = [];

function localReference(value) {
  const v = value.trim();
  return v.startsWith("#") || RASTER_DATA.test(v);
}

// CSS that loads nothing: every url() points into the image, and nothing else names a resource.
// Escapes are refused outright, since "\75 rl(" is also url( to a browser.
function quietCss(text) {
  if (/\\|@import|image-set|\bsrc\s*\(|expression\s*\(/i.test(text)) return false;
  for (const match of text.matchAll(/url\s*\(\s*['"]?\s*(.?)/gi)) {
    if (match[1] !== "#") return false;
  }
  return true;
}

purify.addHook("uponSanitizeElement", (node, data) => {
  const tag = (node.localName || "").toLowerCase();
  if (ACTIVE_ELEMENTS.has(tag)) removed.push(`<${node.localName}>`);
  if (tag === "style" && !quietCss(node.textContent || "")) {
    node.textContent = "";
    removed.push("a style sheet loading from elsewhere");
  }
});

purify.addHook("uponSanitizeAttribute", (node, data) => {
  const name = data.attrName.toLowerCase();
  if (name.startsWith("on")) {
    removed.push(data.attrName);
    data.keepAttr = false;
  } else if (REFERENCES.has(name) && !localReference(data.attrValue)) {
    removed.push(`a reference to ${data.attrValue.trim().slice(0, 60) || "nothing"}`);
    data.keepAttr = false;
  } else if ((name === "style" || /url\s*\(/i.test(data.attrValue)) && !quietCss(data.attrValue)) {
    removed.push(`the ${data.attrName} loading from elsewhere`);
    data.keepAttr = false;
  }
});

// CDATA sections as the text they hold: DOMPurify drops them (style sheets are often written so).
function plainText(node) {
  for (const child of [...node.childNodes]) {
    if (child.nodeType === 4) node.replaceChild(node.ownerDocument.createTextNode(child.data), child);
    else plainText(child);
  }
}

function clean(text) {
  removed = [];
  const doc = new window.DOMParser().parseFromString(text, "image/svg+xml");
  const failure = doc.getElementsByTagName("parsererror")[0];
  if (failure) {
    const message = (failure.textContent || "not well-formed XML").trim();
    const at = /^(\d+):(\d+):\s*(.*)$/s.exec(message);
    return at ? { error: `not well-formed XML: ${at[3].replace(/\.$/, "")}`, line: Number(at[1]) } : { error: message };
  }
  const root = doc.documentElement;
  if (root.localName === "svg" && root.namespaceURI !== SVG_NS) {
    return { error: `not an SVG image: its <svg> element lacks xmlns="${SVG_NS}", so browsers do not draw it` };
  }
  if (root.namespaceURI !== SVG_NS || root.localName !== "svg") {
    return { error: `not an SVG image: its outermost element is <${root.nodeName}>, not <svg>` };
  }
  plainText(root);
  purify.sanitize(root, {
    IN_PLACE: true,
    USE_PROFILES: { svg: true, svgFilters: true },
    ADD_TAGS: ["use"], // references are checked by the hook above: only "#fragment" ones stay
    FORBID_TAGS: ["foreignObject", "script", "animate", "set", "animateMotion", "animateTransform"],
  });
  const svg = '<?xml version="1.0" encoding="UTF-8"?>\n' + new window.XMLSerializer().serializeToString(root) + "\n";
  return { svg, removed: [...new Set(removed)] };
}

const texts = JSON.parse(require("fs").readFileSync(0, "utf8"));
const results = texts.map((text) => {
  try {
    return clean(text);
  } catch (error) {
    return { error: String(error && error.message ? error.message : error) };
  }
});
process.stdout.write(JSON.stringify(results));
