import { describe, expect, it } from 'vitest';
import { GatewayError } from '@switchyard/canonical';
import { DATA, END, FRAME_HEAD_BYTES, frameHead, FrameReader, HEAD, OPEN, openPayload, readOpenPayload, type HopRequestMeta } from './frames.ts';

function frame(type: number, stream: number, payload: Buffer): Buffer {
  return Buffer.concat([frameHead(type, stream, payload.length), payload]);
}

function collect(maxPayload = 1 << 20) {
  const frames: Array<[number, number, string]> = [];
  const reader = new FrameReader((type, stream, payload) => frames.push([type, stream, payload.toString()]), maxPayload);
  return { frames, reader };
}

const meta: HopRequestMeta = {
  route: { format: 'generate-content', operation: 'generate', model: 'gemini-x', stream: true },
  tenantId: 'acme',
  keyId: 'ci',
  requestId: 'r-1',
  headers: { 'anthropic-beta': 'tools', traceparent: '00-abc-def-01' },
  query: { alt: 'sse' },
  estimatedTokens: 42,
  admittedAt: 1_786_708_800_123,
};

describe('hop frames', () => {
  it('should read frames whole, several to a read, and each split at every byte', () => {
    const bytes = Buffer.concat([frame(HEAD, 1, Buffer.from('[200,{}]')), frame(DATA, 7, Buffer.from('data: x\n\n')), frame(END, 1, Buffer.alloc(0))]);
    const expected = [
      [HEAD, 1, '[200,{}]'],
      [DATA, 7, 'data: x\n\n'],
      [END, 1, ''],
    ];
    const whole = collect();
    whole.reader.push(bytes);
    expect(whole.frames).toEqual(expected);
    for (let cut = 1; cut < bytes.length; cut++) {
      const split = collect();
      split.reader.push(bytes.subarray(0, cut));
      split.reader.push(bytes.subarray(cut));
      expect(split.frames, `cut at ${cut}`).toEqual(expected);
    }
    const byteByByte = collect();
    for (const byte of bytes) byteByByte.reader.push(Buffer.from([byte]));
    expect(byteByByte.frames).toEqual(expected);
  });

  it('should join a payload that spans many reads once, when its last byte is in', () => {
    const payload = Buffer.alloc(256 * 1024, 'a');
    const bytes = frame(DATA, 3, payload);
    const { frames, reader } = collect();
    for (let offset = 0; offset < bytes.length; offset += 1000) {
      reader.push(bytes.subarray(offset, offset + 1000));
      if (offset + 1000 < bytes.length) expect(frames).toEqual([]);
    }
    expect(frames).toEqual([[DATA, 3, payload.toString()]]);
  });

  it('should refuse a frame that announces more than the limit, before its payload arrives', () => {
    const { reader } = collect(100);
    const error = (() => {
      try {
        reader.push(frameHead(OPEN, 1, 101));
      } catch (thrown) {
        return thrown;
      }
    })();
    expect(GatewayError.isInstance(error)).toBe(true);
    expect(() => collect(100).reader.push(frame(OPEN, 1, Buffer.alloc(100)))).not.toThrow();
  });

  it('should write the head as length, type and stream, big-endian', () => {
    expect([...frameHead(DATA, 0x01020304, 0x0a0b0c0d)]).toEqual([0x0a, 0x0b, 0x0c, 0x0d, DATA, 0x01, 0x02, 0x03, 0x04]);
    expect(frameHead(END, 1, 0)).toHaveLength(FRAME_HEAD_BYTES);
  });

  it('should carry a request\'s meta and raw body through an OPEN payload', () => {
    const body = Buffer.from('{"contents":[{"parts":[{"text":"héllo ✓"}]}]}');
    const { chunks, length } = openPayload(meta, body);
    const payload = Buffer.concat(chunks);
    expect(payload).toHaveLength(length);
    const read = readOpenPayload(payload);
    expect(read?.meta).toEqual(meta);
    expect(read?.body.equals(body)).toBe(true);
    // The body is its own copy: the connection's read it came in is not kept alive by it.
    payload.fill(0);
    expect(read?.body.equals(body)).toBe(true);
    const { admittedAt: _, ...withoutAdmission } = meta;
    expect(readOpenPayload(Buffer.concat(openPayload(withoutAdmission, Buffer.alloc(0)).chunks))?.meta).toEqual(withoutAdmission);
  });

  it('should not take an OPEN payload that is cut short, not JSON, or not a request', () => {
    const good = Buffer.concat(openPayload(meta, Buffer.from('{}')).chunks);
    const withMeta = (value: unknown) => Buffer.concat(openPayload(value as HopRequestMeta, Buffer.alloc(0)).chunks);
    const bad = [
      Buffer.alloc(3),
      good.subarray(0, 20),
      Buffer.concat([Buffer.from([0, 0, 0, 5]), Buffer.from('nope!')]),
      withMeta({ ...meta, route: { ...meta.route, format: 'fax' } }),
      withMeta({ ...meta, route: { ...meta.route, stream: 'yes' } }),
      withMeta({ ...meta, tenantId: 7 }),
      withMeta({ ...meta, headers: { a: ['x'] } }),
      withMeta({ ...meta, query: null }),
      withMeta({ ...meta, estimatedTokens: '42' }),
      withMeta({ ...meta, admittedAt: 'now' }),
    ];
    for (const payload of bad) expect(readOpenPayload(payload)).toBeUndefined();
  });
});
