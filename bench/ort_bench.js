// node bench/ort_bench.js MODEL.onnx NAME=INPUT.npy ... [--threads N] [--warmup W] [--iterations N]
// ONNX Runtime's latency on a model, the peer of `tosakit bench` in bench/vs_onnxruntime.sh: one session
// (all graph optimizations, sequential execution, intra-op threads N, inter-op 1), W untimed runs, then N
// timed runs of session.run. Prints a summary line and, as the last line, one JSON object
// {"threads":N,"iterations":N,"latency_ms":{"min":..,"median":..,"max":..}}.
// Uses the pinned onnxruntime-node of tools/ort (npm ci --ignore-scripts there). Inputs: float32 .npy.
const path = require('path');
const fs = require('fs');
const {createRequire} = require('module');

const ort = createRequire(path.join(__dirname, '..', 'tools', 'ort', 'package.json'))('onnxruntime-node');

function readNpyFloat32(file) {
  const buf = fs.readFileSync(file);
  if (buf.toString('latin1', 1, 6) !== 'NUMPY') throw new Error(file + ': not a .npy file');
  const major = buf[6];
  const hlen = major === 1 ? buf.readUInt16LE(8) : buf.readUInt32LE(8);
  const start = major === 1 ? 10 : 12;
  const header = buf.slice(start, start + hlen).toString('latin1');
  if (!/'descr':\s*'<f4'/.test(header)) throw new Error(file + ': only float32 inputs are supported');
  if (/'fortran_order':\s*True/.test(header)) throw new Error(file + ': fortran order not supported');
  const shape = header.match(/'shape':\s*\(([^)]*)\)/)[1].split(',').filter(s => s.trim()).map(Number);
  const bytes = buf.slice(start + hlen);
  const data = new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length));
  return new ort.Tensor('float32', data, shape);
}

function parseArgs(argv) {
  const a = {model: null, feeds: {}, threads: 1, warmup: 5, iterations: 20};
  for (let i = 0; i < argv.length; ++i) {
    const s = argv[i];
    const value = () => {
      const v = Number(argv[++i]);
      if (!Number.isInteger(v) || v < 0) throw new Error(s + ' needs a non-negative integer');
      return v;
    };
    if (s === '--threads') a.threads = value();
    else if (s === '--warmup') a.warmup = value();
    else if (s === '--iterations') a.iterations = value();
    else if (s.includes('=')) a.feeds[s.slice(0, s.indexOf('='))] = readNpyFloat32(s.slice(s.indexOf('=') + 1));
    else if (!a.model) a.model = s;
    else throw new Error('unexpected argument ' + s);
  }
  if (!a.model || a.iterations < 1) throw new Error('usage: node ort_bench.js MODEL.onnx NAME=IN.npy ... [--threads N] [--warmup W] [--iterations N]');
  return a;
}

(async () => {
  const a = parseArgs(process.argv.slice(2));
  const session = await ort.InferenceSession.create(a.model, {
    intraOpNumThreads: a.threads, interOpNumThreads: 1, executionMode: 'sequential', graphOptimizationLevel: 'all'});
  for (const name of session.inputNames)
    if (!(name in a.feeds)) throw new Error(a.model + ': input ' + name + ' not given');
  for (let i = 0; i < a.warmup; ++i) await session.run(a.feeds);
  const ms = [];
  for (let i = 0; i < a.iterations; ++i) {
    const t0 = process.hrtime.bigint();
    await session.run(a.feeds);
    ms.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  ms.sort((x, y) => x - y);
  const n = ms.length, median = n % 2 ? ms[(n - 1) / 2] : (ms[n / 2 - 1] + ms[n / 2]) / 2;
  console.log(`onnxruntime ${a.threads} thread(s): min ${ms[0].toFixed(3)} median ${median.toFixed(3)} max ${ms[n - 1].toFixed(3)} ms over ${n} runs`);
  console.log(JSON.stringify({threads: a.threads, iterations: n, latency_ms: {min: ms[0], median, max: ms[n - 1]}}));
})().catch(e => { console.error('ort_bench: ' + e.message); process.exit(1); });
