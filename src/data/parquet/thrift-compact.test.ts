import { describe, expect, it } from 'vitest';
import { TradelabError } from '../../core/index.js';
import {
  COMPACT_TYPE,
  CompactReader,
  CompactWriter,
  ThriftStruct,
  isThriftTruncated,
} from './thrift-compact.js';

function bytesOf(write: (w: CompactWriter) => void): number[] {
  const w = new CompactWriter();
  w.structBegin();
  write(w);
  w.structEnd();
  return [...w.finish()];
}

function decode(bytes: readonly number[]): ThriftStruct {
  return new CompactReader(Uint8Array.from(bytes)).readStruct();
}

describe('compact protocol encoding (hand-checked bytes)', () => {
  it('packs short field-id deltas and the type into one byte, and zigzags i32', () => {
    // field 1, type I32 (5): 0x15; zigzag(1) = 2; field 2 (delta 1), i32 -1 → zigzag 1; stop.
    expect(
      bytesOf((w) => {
        w.i32Field(1, 1);
        w.i32Field(2, -1);
      }),
    ).toEqual([0x15, 0x02, 0x15, 0x01, 0x00]);
  });

  it('writes a long-form header when the delta is above 15 or not positive', () => {
    // field 20 (delta 20): type byte 0x05, then zigzag(20) = 40 = 0x28; field 3 after 20: 0x05, 6.
    expect(
      bytesOf((w) => {
        w.i32Field(20, 0);
        w.i32Field(3, 0);
      }),
    ).toEqual([0x05, 0x28, 0x00, 0x05, 0x06, 0x00, 0x00]);
  });

  it('puts bool field values in the type nibble', () => {
    expect(
      bytesOf((w) => {
        w.boolField(1, true);
        w.boolField(2, false);
      }),
    ).toEqual([0x11, 0x12, 0x00]);
  });

  it('writes list sizes below 15 in the header nibble and larger ones as a varint', () => {
    const small = bytesOf((w) => {
      w.listField(1, COMPACT_TYPE.I32, [1, 2], (_, v) => {
        w.i32(v);
      });
    });
    expect(small).toEqual([0x19, 0x25, 0x02, 0x04, 0x00]);
    const items = Array.from({ length: 20 }, () => 0);
    const large = bytesOf((w) => {
      w.listField(1, COMPACT_TYPE.I32, items, (_, v) => {
        w.i32(v);
      });
    });
    expect(large.slice(0, 3)).toEqual([0x19, 0xf5, 20]);
    expect(large.length).toBe(3 + 20 + 1);
  });

  it('encodes i64 extremes as 10-byte zigzag varints', () => {
    const bytes = bytesOf((w) => {
      w.i64Field(1, -(2n ** 63n));
    });
    // zigzag(-2^63) = 2^64 - 1: nine 0xff bytes then 0x01.
    expect(bytes).toEqual([0x16, ...Array.from({ length: 9 }, () => 0xff), 0x01, 0x00]);
  });
});

describe('compact protocol round trip', () => {
  it('decodes what it encodes, nested structs and lists included', () => {
    const bytes = bytesOf((w) => {
      w.i32Field(1, -123456);
      w.i64Field(2, 2n ** 62n + 5n);
      w.i64Field(3, -9007199254740991);
      w.stringField(4, 'héllo');
      w.binaryField(5, Uint8Array.from([0, 255, 7]));
      w.doubleField(6, -1.5);
      w.boolField(7, true);
      w.i8Field(8, -3);
      w.i16Field(9, 30000);
      w.structField(40, () => {
        w.i32Field(1, 7);
        w.structField(2, () => {
          w.boolField(1, false);
        });
      });
      w.listField(41, COMPACT_TYPE.STRUCT, [1, 2, 3], (_, v) => {
        w.structElement(() => {
          w.i32Field(1, v);
        });
      });
      w.listField(42, COMPACT_TYPE.BINARY, ['a', 'bc'], (_, v) => {
        w.string(v);
      });
    });
    const s = decode(bytes);
    expect(s.int(1)).toBe(-123456);
    expect(s.fields.get(2)).toBe(2n ** 62n + 5n);
    expect(s.i64(3)).toBe(-9007199254740991);
    expect(s.string(4)).toBe('héllo');
    expect([...(s.binary(5) ?? [])]).toEqual([0, 255, 7]);
    expect(s.fields.get(6)).toBe(-1.5);
    expect(s.bool(7)).toBe(true);
    expect(s.int(8)).toBe(-3);
    expect(s.int(9)).toBe(30000);
    expect(s.struct(40)?.int(1)).toBe(7);
    expect(s.struct(40)?.struct(2)?.bool(1)).toBe(false);
    expect(s.structList(41).map((e) => e.int(1))).toEqual([1, 2, 3]);
    expect(s.stringList(42)).toEqual(['a', 'bc']);
    expect(s.has(99)).toBe(false);
  });

  it('round-trips i32 and i64 boundary values', () => {
    const i32s = [0, 1, -1, 63, -64, 64, 2 ** 31 - 1, -(2 ** 31)];
    const i64s = [0n, -1n, 2n ** 63n - 1n, -(2n ** 63n), 2n ** 53n, -(2n ** 53n) - 1n];
    const bytes = bytesOf((w) => {
      w.listField(1, COMPACT_TYPE.I32, i32s, (_, v) => {
        w.i32(v);
      });
      w.listField(2, COMPACT_TYPE.I64, i64s, (_, v) => {
        w.i64(v);
      });
    });
    const s = decode(bytes);
    expect(s.intList(1)).toEqual(i32s);
    expect(s.list(2)).toEqual(i64s);
  });

  it('skips over fields and types a reader does not ask for (maps, sets, doubles)', () => {
    // A map<i32,i32> {1: 2} as field 1 (type 11), then an i32 field 2 = 5.
    const s = decode([0x1b, 0x01, 0x55, 0x02, 0x04, 0x15, 0x0a, 0x00]);
    expect(s.int(2)).toBe(5);
    expect(s.fields.get(1)).toEqual(new Map([[1, 2]]));
  });

  it('reports truncation distinctly from corruption', () => {
    const bytes = bytesOf((w) => {
      w.stringField(1, 'abcdef');
    });
    let caught: unknown;
    try {
      decode(bytes.slice(0, 4));
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(TradelabError);
    expect(isThriftTruncated(caught)).toBe(true);

    let corrupt: unknown;
    try {
      decode([0x1d, 0x00]); // type 13 does not exist
    } catch (error) {
      corrupt = error;
    }
    expect(corrupt).toBeInstanceOf(TradelabError);
    expect(isThriftTruncated(corrupt)).toBe(false);
  });

  it('checks wire types in the typed accessors', () => {
    const s = decode(
      bytesOf((w) => {
        w.stringField(1, 'x');
      }),
    );
    expect(() => s.int(1)).toThrow(/field 1 should be an integer but is a binary/);
  });
});
