// `make lint` for the JavaScript: correctness only (eslint's recommended rules: undefined and unused
// names, unreachable code, duplicate keys...), no style. The site's scripts are classic browser scripts
// under one global, `nexttoken`; the tests are CommonJS for node.
"use strict";
const js = require("@eslint/js");
const globals = require("globals");

module.exports = [
  { ignores: ["docs/js/data/**", "docs/js/real/kernels-wasm.js", "build/**", "**/node_modules/**", ".venv/**", "docs/assets/**"] },
  js.configs.recommended,
  {
    rules: {
      "no-unused-vars": ["error", { caughtErrors: "none" }],  // `catch (e)` that ignores e is fine
      "no-useless-escape": "off",                              // style
      "preserve-caught-error": "off",                          // the messages say the cause in words
    },
  },
  {
    files: ["docs/js/**/*.js"],
    languageOptions: {
      ecmaVersion: 2022, sourceType: "script",
      globals: { ...globals.browser, ...globals.worker, nexttoken: "writable", module: "readonly" },
    },
  },
  {
    files: ["tests/**/*.js", "scripts/**/*.js", "eslint.config.js"],
    languageOptions: { ecmaVersion: 2022, sourceType: "commonjs", globals: { ...globals.node, nexttoken: "readonly" } },
  },
  {
    files: ["scripts/**/*.mjs"],  // the benchmark's node-only peers (scripts/quality/peers/)
    languageOptions: { ecmaVersion: 2022, sourceType: "module", globals: { ...globals.node } },
  },
];
