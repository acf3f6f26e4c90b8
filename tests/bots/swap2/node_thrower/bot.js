// node_thrower: throws at its first prompt. node prints the source line, the error, a stack
// and its own version last: the crash reason must quote "Error: ...", not "Node.js v20...".
const readline = require("readline");
const rl = readline.createInterface({ input: process.stdin });
function think(line) {
  throw new Error("node_thrower cannot read " + JSON.stringify(line.split(" ")[0]));
}
rl.on("line", (line) => {
  process.stdout.write(think(line) + "\n");
});
