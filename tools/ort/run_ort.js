// node run_ort.js MODEL.onnx OUT.npz INPUTS.npz
// node run_ort.js MODEL.onnx OUT_DIR NAME=INPUT.npy ...
// Runs ONNX Runtime (tosakit's independent oracle) on float32/int64/int32 inputs. With an .npz output, every
// graph input is read from INPUTS.npz (keyed by input name) and every output is written to OUT.npz (keyed by
// output name); otherwise each output is written as OUT_DIR/<output name>.npy.
// Install: npm ci --ignore-scripts (onnxruntime-node ships its native library in the package tarball; the
// skipped install script only fetches optional GPU providers).
const ort = require('onnxruntime-node');
const fs = require('fs');
const path = require('path');
const zlib = require('zlib');

const NPY_TYPES = {'<f4': ['float32', Float32Array], '<i8': ['int64', BigInt64Array], '<i4': ['int32', Int32Array]};

function parseNpy(buf, what) {
  if (buf.toString('latin1', 1, 6) !== 'NUMPY') throw new Error(what + ': not a .npy file');
  const major = buf[6];
  const hlen = major === 1 ? buf.readUInt16LE(8) : buf.readUInt32LE(8);
  const start = major === 1 ? 10 : 12;
  const header = buf.slice(start, start + hlen).toString('latin1');
  const descr = header.match(/'descr':\s*'([^']*)'/)[1];
  if (!(descr in NPY_TYPES)) throw new Error(what + ': unsupported dtype ' + descr);
  if (/'fortran_order':\s*True/.test(header)) throw new Error(what + ': fortran order not supported');
  const shape = header.match(/'shape':\s*\(([^)]*)\)/)[1].split(',').filter(s => s.trim()).map(Number);
  const [type, Arr] = NPY_TYPES[descr];
  const bytes = buf.slice(start + hlen);
  const data = new Arr(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length));
  return new ort.Tensor(type, data, shape);
}

function npyBytes(tensor) {
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
  return Buffer.concat([pre, Buffer.from(header, 'latin1'), data]);
}

// ---- .npz: a zip of NAME.npy members (numpy writes them stored, savez_compressed deflated) ----

// Members listed by the central directory (sizes there are exact even when numpy forces zip64 headers).
function readNpz(file) {
  const buf = fs.readFileSync(file);
  let eocd = -1;
  for (let i = buf.length - 22; i >= Math.max(0, buf.length - 22 - 65535); --i)
    if (buf.readUInt32LE(i) === 0x06054b50) { eocd = i; break; }
  if (eocd < 0) throw new Error(file + ': not an .npz (zip) file');
  const count = buf.readUInt16LE(eocd + 10);
  let p = buf.readUInt32LE(eocd + 16);
  const out = {};
  for (let k = 0; k < count; ++k) {
    if (buf.readUInt32LE(p) !== 0x02014b50) throw new Error(file + ': bad zip central directory');
    const method = buf.readUInt16LE(p + 10);
    let csize = buf.readUInt32LE(p + 20);
    const nlen = buf.readUInt16LE(p + 28), xlen = buf.readUInt16LE(p + 30), clen = buf.readUInt16LE(p + 32);
    let offset = buf.readUInt32LE(p + 42);
    const name = buf.toString('utf8', p + 46, p + 46 + nlen);
    // zip64 extra field: the 0xFFFFFFFF fields follow in order (uncompressed, compressed, offset).
    for (let x = p + 46 + nlen; x < p + 46 + nlen + xlen;) {
      const id = buf.readUInt16LE(x), sz = buf.readUInt16LE(x + 2);
      if (id === 0x0001) {
        let q = x + 4;
        if (buf.readUInt32LE(p + 24) === 0xFFFFFFFF) q += 8;
        if (csize === 0xFFFFFFFF) { csize = Number(buf.readBigUInt64LE(q)); q += 8; }
        if (offset === 0xFFFFFFFF) offset = Number(buf.readBigUInt64LE(q));
      }
      x += 4 + sz;
    }
    const data0 = offset + 30 + buf.readUInt16LE(offset + 26) + buf.readUInt16LE(offset + 28);
    const raw = buf.slice(data0, data0 + csize);
    const member = method === 0 ? raw : method === 8 ? zlib.inflateRawSync(raw) : null;
    if (!member) throw new Error(file + ': ' + name + ': unsupported zip compression ' + method);
    out[name.replace(/\.npy$/, '')] = parseNpy(member, file + ':' + name);
    p += 46 + nlen + xlen + clen;
  }
  return out;
}

const CRC_TABLE = (() => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; ++n) {
    let c = n;
    for (let k = 0; k < 8; ++k) c = c & 1 ? 0xEDB88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
})();

function crc32(buf) {
  let c = 0xFFFFFFFF;
  for (let i = 0; i < buf.length; ++i) c = CRC_TABLE[(c ^ buf[i]) & 0xFF] ^ (c >>> 8);
  return (c ^ 0xFFFFFFFF) >>> 0;
}

// A stored (uncompressed) zip, as numpy.savez writes.
function writeNpz(file, members) {
  const locals = [], centrals = [];
  let offset = 0;
  for (const [name, data] of members) {
    const fname = Buffer.from(name + '.npy', 'utf8');
    const crc = crc32(data);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0); local.writeUInt16LE(20, 4);
    local.writeUInt32LE(crc, 14); local.writeUInt32LE(data.length, 18); local.writeUInt32LE(data.length, 22);
    local.writeUInt16LE(fname.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0); central.writeUInt16LE(20, 4); central.writeUInt16LE(20, 6);
    central.writeUInt32LE(crc, 16); central.writeUInt32LE(data.length, 20); central.writeUInt32LE(data.length, 24);
    central.writeUInt16LE(fname.length, 28); central.writeUInt32LE(offset, 42);
    locals.push(local, fname, data);
    centrals.push(central, fname);
    offset += 30 + fname.length + data.length;
  }
  const cd = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0); end.writeUInt16LE(members.length, 8); end.writeUInt16LE(members.length, 10);
  end.writeUInt32LE(cd.length, 12); end.writeUInt32LE(offset, 16);
  fs.writeFileSync(file, Buffer.concat([...locals, cd, end]));
}

(async () => {
  const [model, out, ...specs] = process.argv.slice(2);
  if (!model || !out) throw new Error('usage: node run_ort.js MODEL.onnx OUT.npz INPUTS.npz | OUT_DIR NAME=IN.npy ...');
  const npzOut = out.endsWith('.npz');
  let feeds = {};
  if (npzOut) {
    if (specs.length !== 1) throw new Error('with OUT.npz give exactly one INPUTS.npz');
    feeds = readNpz(specs[0]);
  } else {
    for (const s of specs) {
      const eq = s.indexOf('=');
      feeds[s.slice(0, eq)] = parseNpy(fs.readFileSync(s.slice(eq + 1)), s.slice(eq + 1));
    }
  }
  const session = await ort.InferenceSession.create(model);
  if (npzOut) {
    // Feed exactly the graph inputs (an extra npz key is an error rather than silently ignored).
    for (const name of Object.keys(feeds))
      if (!session.inputNames.includes(name)) throw new Error(specs[0] + ': ' + name + ' is not an input of ' + model);
  }
  const results = await session.run(feeds);
  const members = [];
  if (!npzOut) fs.mkdirSync(out, {recursive: true});
  for (const name of session.outputNames) {
    if (npzOut) members.push([name, npyBytes(results[name])]);
    else fs.writeFileSync(path.join(out, name.replace(/[^A-Za-z0-9_.-]/g, '_') + '.npy'), npyBytes(results[name]));
    console.log(name, results[name].dims.join('x'));
  }
  if (npzOut) writeNpz(out, members);
})().catch(e => { console.error('run_ort: ' + e.message); process.exit(1); });
