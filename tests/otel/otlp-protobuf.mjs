// The OTLP/HTTP protobuf bodies the engine's exporter posts, read without a protobuf library:
// a small wire-format reader and the fields of ExportTraceServiceRequest the tests check (field
// numbers from opentelemetry-proto's trace.proto and common.proto). Used by the Node binding's
// OpenTelemetry test and by otlp-receiver.mjs (the receiver the Swift tests read spans from).

/** The fields of one protobuf message: [field number, value] (varint as BigInt, else bytes). */
export function fields(buf) {
  const out = [];
  let i = 0;
  const varint = () => {
    let x = 0n;
    for (let shift = 0n; ; shift += 7n) {
      if (i >= buf.length) throw new Error('truncated varint');
      const b = buf[i++];
      x |= BigInt(b & 0x7f) << shift;
      if (!(b & 0x80)) return x;
    }
  };
  const take = (n) => {
    if (i + n > buf.length) throw new Error('truncated field');
    const v = buf.subarray(i, i + n);
    i += n;
    return v;
  };
  while (i < buf.length) {
    const key = Number(varint());
    const [no, wire] = [key >> 3, key & 7];
    if (wire === 0) out.push([no, varint()]);
    else if (wire === 1) out.push([no, take(8)]);
    else if (wire === 2) out.push([no, take(Number(varint()))]);
    else if (wire === 5) out.push([no, take(4)]);
    else throw new Error(`protobuf wire type ${wire}`);
  }
  return out;
}
const all = (buf, no) => fields(buf).filter(([n]) => n === no).map(([, v]) => v);
const one = (buf, no) => all(buf, no)[0];
const text = (b) => (b === undefined ? undefined : Buffer.from(b).toString('utf8'));
const hex = (b) => (b === undefined ? '' : Buffer.from(b).toString('hex'));
/** KeyValue list -> { key: string value } (AnyValue.string_value is field 1). */
const attributes = (kvs) => Object.fromEntries(kvs.map((kv) => [text(one(kv, 1)), text(one(one(kv, 2) ?? Buffer.alloc(0), 1))]));

/** ExportTraceServiceRequest -> spans with their resource's service.name. */
export function decodeTraces(body) {
  const spans = [];
  for (const rs of all(body, 1)) {
    const service = attributes(all(one(rs, 1) ?? Buffer.alloc(0), 1))['service.name'];
    for (const ss of all(rs, 2)) {
      for (const s of all(ss, 2)) {
        spans.push({
          service,
          traceId: hex(one(s, 1)),
          spanId: hex(one(s, 2)),
          parentSpanId: hex(one(s, 4)),
          name: text(one(s, 5)),
          kind: Number(one(s, 6) ?? 0n),
          attributes: attributes(all(s, 9)),
        });
      }
    }
  }
  return spans;
}
