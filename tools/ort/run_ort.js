// node run_ort.js MODEL.onnx OUT_DIR NAME=INPUT.npy ...
// Runs ONNX Runtime (tosakit's independent oracle) on float32/int64/int32 .npy inputs and writes every output
// as OUT_DIR/<output name>.npy (float32, int64 or int32).
const ort = require('onnxruntime-node');
const fs = require('fs');
const path = require('path');

const NPY_TYPES = {'<f4': ['float32', Float32Array], '<i8': ['int64', BigInt64Array], '<i4': ['int32', Int32Array]};

function readNpy(file) {
  const buf = fs.readFileSync(file);
  if (buf.toString('latin1', 1, 6) !== 'NUMPY') throw new Error(file + ': not a .npy file');
  const major = buf[6];
  const hlen = major === 1 ? buf.readUInt16LE(8) : buf.readUInt32LE(8);
  const start = major === 1 ? 10 : 12;
  const header = buf.slice(start, start + hlen).toString('latin1');
  const descr = header.match(/'descr':\s*'([^']*)'/)[1];
  if (!(descr in NPY_TYPES)) throw new Error(file + ': unsupported dtype ' + descr);
  if (/'fortran_order':\s*True/.test(header)) throw new Error(file + ': fortran order not supported');
  const shape = header.match(/'shape':\s*\(([^)]*)\)/)[1].split(',').filter(s => s.trim()).map(Number);
  const [type, Arr] = NPY_TYPES[descr];
  const bytes = buf.slice(start + hlen);
  const data = new Arr(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length));
  return new ort.Tensor(type, data, shape);
}

function writeNpy(file, tensor) {
  const descr = {float32: '<f4', int64: '<i8', int32: '<i4'}[tensor.type];
  if (!descr) throw new Error('output type ' + tensor.type + ' not supported');
  const shape = tensor.dims.length === 1 ? `(${tensor.dims[0]},)` : `(${tensor.dims.join(', ')})`;
  let header = `{'descr': '${descr}', 'fortran_order': False, 'shape': ${shape}, }`;
  const total = 10 + header.length + 1;
  header += ' '.repeat((64 - (total % 64)) % 64) + '\n';
  const pre = Buffer.alloc(10);
  pre.write('\x93NUMPY', 0, 'latin1');
  pre[6] = 1; pre[7] = 0;
  pre.writeUInt16LE(header.length, 8);
  const data = Buffer.from(tensor.data.buffer, tensor.data.byteOffset, tensor.data.byteLength);
  fs.writeFileSync(file, Buffer.concat([pre, Buffer.from(header, 'latin1'), data]));
}

(async () => {
  const [model, outDir, ...specs] = process.argv.slice(2);
  const feeds = {};
  for (const s of specs) {
    const eq = s.indexOf('=');
    feeds[s.slice(0, eq)] = readNpy(s.slice(eq + 1));
  }
  const session = await ort.InferenceSession.create(model);
  const results = await session.run(feeds);
  fs.mkdirSync(outDir, {recursive: true});
  for (const name of session.outputNames) {
    writeNpy(path.join(outDir, name.replace(/[^A-Za-z0-9_.-]/g, '_') + '.npy'), results[name]);
    console.log(name, results[name].dims.join('x'));
  }
})().catch(e => { console.error('run_ort: ' + e.message); process.exit(1); });
