/**
 * A small Thrift Compact Protocol codec: just what Parquet metadata needs (structs, lists, i32, i64,
 * binary/string, bool, double, i8/i16). Spec: apache/thrift doc/specs/thrift-compact-protocol.md.
 *
 * The writer is imperative (one method per field kind); the reader decodes any struct generically
 * into a {@link ThriftStruct} keyed by field id, so fields a newer writer added are kept or ignored
 * rather than breaking the parse.
 */
import { TradelabError } from '../../core/index.js';

/** Compact protocol type ids, as they appear in field headers and list headers. */
export const COMPACT_TYPE = {
  STOP: 0,
  BOOL_TRUE: 1,
  BOOL_FALSE: 2,
  BYTE: 3,
  I16: 4,
  I32: 5,
  I64: 6,
  DOUBLE: 7,
  BINARY: 8,
  LIST: 9,
  SET: 10,
  MAP: 11,
  STRUCT: 12,
} as const;

/** A compact protocol type id. */
export type CompactType = (typeof COMPACT_TYPE)[keyof typeof COMPACT_TYPE];

/** A decoded Thrift value. i64 decodes to bigint, the other integers to number, strings stay bytes. */
export type ThriftValue =
  | boolean
  | number
  | bigint
  | Uint8Array
  | ThriftValue[]
  | ThriftStruct
  | Map<ThriftValue, ThriftValue>;

const textEncoder = new TextEncoder();
const textDecoder = new TextDecoder('utf-8', { fatal: false });

// Thrift decoding recursion bound: Parquet metadata nests a handful of levels; hostile input could
// nest without end and blow the stack.
const MAX_DEPTH = 64;

/** Writes Thrift compact-protocol bytes into a growing buffer. */
export class CompactWriter {
  private bytes = new Uint8Array(256);
  private view = new DataView(this.bytes.buffer);
  private length = 0;
  // Field ids are written as deltas from the previous field of the same struct.
  private lastFieldId = 0;
  private readonly fieldIdStack: number[] = [];

  /** The bytes written so far (a copy sized to fit). */
  finish(): Uint8Array {
    return this.bytes.slice(0, this.length);
  }

  /** Starts a top-level struct or a struct element of a list. End it with {@link structEnd}. */
  structBegin(): void {
    this.fieldIdStack.push(this.lastFieldId);
    this.lastFieldId = 0;
  }

  /** Ends the current struct (writes the stop byte). */
  structEnd(): void {
    this.byte(COMPACT_TYPE.STOP);
    const previous = this.fieldIdStack.pop();
    if (previous === undefined) throw internal('structEnd() without a matching structBegin()');
    this.lastFieldId = previous;
  }

  /** An i32 field (also used for enums). */
  i32Field(id: number, value: number): void {
    this.fieldHeader(id, COMPACT_TYPE.I32);
    this.i32(value);
  }

  /** An i64 field; a number must be a safe integer. */
  i64Field(id: number, value: number | bigint): void {
    this.fieldHeader(id, COMPACT_TYPE.I64);
    this.i64(value);
  }

  /** An i8 field. */
  i8Field(id: number, value: number): void {
    this.fieldHeader(id, COMPACT_TYPE.BYTE);
    this.byte(value & 0xff);
  }

  /** An i16 field. */
  i16Field(id: number, value: number): void {
    this.fieldHeader(id, COMPACT_TYPE.I16);
    this.i32(value);
  }

  /** A double field (8 bytes, little-endian). */
  doubleField(id: number, value: number): void {
    this.fieldHeader(id, COMPACT_TYPE.DOUBLE);
    this.double(value);
  }

  /** A bool field: the value lives in the field header's type nibble. */
  boolField(id: number, value: boolean): void {
    this.fieldHeader(id, value ? COMPACT_TYPE.BOOL_TRUE : COMPACT_TYPE.BOOL_FALSE);
  }

  /** A binary field. */
  binaryField(id: number, value: Uint8Array): void {
    this.fieldHeader(id, COMPACT_TYPE.BINARY);
    this.binary(value);
  }

  /** A string field (UTF-8 binary). */
  stringField(id: number, value: string): void {
    this.binaryField(id, textEncoder.encode(value));
  }

  /** A struct field whose fields `write` adds; the stop byte is written for it. */
  structField(id: number, write: (writer: this) => void): void {
    this.fieldHeader(id, COMPACT_TYPE.STRUCT);
    this.structBegin();
    write(this);
    this.structEnd();
  }

  /** A list field: the header, then `writeItem` once per item (use the element writers). */
  listField<T>(
    id: number,
    elementType: CompactType,
    items: readonly T[],
    writeItem: (writer: this, item: T) => void,
  ): void {
    this.fieldHeader(id, COMPACT_TYPE.LIST);
    this.listHeader(elementType, items.length);
    for (const item of items) writeItem(this, item);
  }

  /** A list header: the size in the high nibble when < 15, else 0xF and a varint size. */
  listHeader(elementType: CompactType, size: number): void {
    if (size < 15) this.byte((size << 4) | elementType);
    else {
      this.byte(0xf0 | elementType);
      this.varint32(size);
    }
  }

  /** A struct element of a list. */
  structElement(write: (writer: this) => void): void {
    this.structBegin();
    write(this);
    this.structEnd();
  }

  /** An i32 value (zigzag varint), for list elements. */
  i32(value: number): void {
    this.varint32(((value << 1) ^ (value >> 31)) >>> 0);
  }

  /** An i64 value (zigzag varint), for list elements. */
  i64(value: number | bigint): void {
    if (typeof value === 'number' && !Number.isSafeInteger(value)) {
      throw internal(`i64 value ${value} is not a safe integer`);
    }
    const big = BigInt.asIntN(64, BigInt(value));
    let zigzag = BigInt.asUintN(64, (big << 1n) ^ (big >> 63n));
    while (zigzag >= 0x80n) {
      this.byte(Number(zigzag & 0x7fn) | 0x80);
      zigzag >>= 7n;
    }
    this.byte(Number(zigzag));
  }

  /** A double value, for list elements. */
  double(value: number): void {
    this.reserve(8);
    this.view.setFloat64(this.length, value, true);
    this.length += 8;
  }

  /** A binary value (varint length, then the bytes), for list elements. */
  binary(value: Uint8Array): void {
    this.varint32(value.length);
    this.reserve(value.length);
    this.bytes.set(value, this.length);
    this.length += value.length;
  }

  /** A string value (UTF-8 binary), for list elements. */
  string(value: string): void {
    this.binary(textEncoder.encode(value));
  }

  private fieldHeader(id: number, type: CompactType): void {
    const delta = id - this.lastFieldId;
    if (delta > 0 && delta <= 15) this.byte((delta << 4) | type);
    else {
      this.byte(type);
      this.i32(id);
    }
    this.lastFieldId = id;
  }

  private varint32(value: number): void {
    let v = value >>> 0;
    while (v >= 0x80) {
      this.byte((v & 0x7f) | 0x80);
      v >>>= 7;
    }
    this.byte(v);
  }

  private byte(value: number): void {
    this.reserve(1);
    this.bytes[this.length++] = value;
  }

  private reserve(extra: number): void {
    if (this.length + extra <= this.bytes.length) return;
    let size = this.bytes.length * 2;
    while (size < this.length + extra) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.bytes.subarray(0, this.length));
    this.bytes = next;
    this.view = new DataView(next.buffer);
  }
}

/** A decoded struct: field id → value, with typed accessors that check the wire type. */
export class ThriftStruct {
  /** The decoded fields, by id. */
  readonly fields = new Map<number, ThriftValue>();

  /** Whether the field is present. */
  has(id: number): boolean {
    return this.fields.has(id);
  }

  /** An i8/i16/i32 field (enums too), if present. */
  int(id: number): number | undefined {
    const value = this.fields.get(id);
    if (value === undefined) return undefined;
    if (typeof value !== 'number') throw mismatch(id, 'an integer', value);
    return value;
  }

  /** An i64 field as a number (must be a safe integer), if present. */
  i64(id: number): number | undefined {
    const value = this.fields.get(id);
    if (value === undefined) return undefined;
    if (typeof value === 'number') return value;
    if (typeof value !== 'bigint') throw mismatch(id, 'an i64', value);
    if (value > BigInt(Number.MAX_SAFE_INTEGER) || value < BigInt(Number.MIN_SAFE_INTEGER)) {
      throw decodeError(`field ${id}: i64 value ${value} does not fit a safe integer`);
    }
    return Number(value);
  }

  /** A bool field, if present. */
  bool(id: number): boolean | undefined {
    const value = this.fields.get(id);
    if (value === undefined) return undefined;
    if (typeof value !== 'boolean') throw mismatch(id, 'a bool', value);
    return value;
  }

  /** A binary field, if present. */
  binary(id: number): Uint8Array | undefined {
    const value = this.fields.get(id);
    if (value === undefined) return undefined;
    if (!(value instanceof Uint8Array)) throw mismatch(id, 'a binary', value);
    return value;
  }

  /** A string field (UTF-8), if present. */
  string(id: number): string | undefined {
    const bytes = this.binary(id);
    return bytes === undefined ? undefined : textDecoder.decode(bytes);
  }

  /** A struct field, if present. */
  struct(id: number): ThriftStruct | undefined {
    const value = this.fields.get(id);
    if (value === undefined) return undefined;
    if (!(value instanceof ThriftStruct)) throw mismatch(id, 'a struct', value);
    return value;
  }

  /** A list (or set) field, if present. */
  list(id: number): ThriftValue[] | undefined {
    const value = this.fields.get(id);
    if (value === undefined) return undefined;
    if (!Array.isArray(value)) throw mismatch(id, 'a list', value);
    return value;
  }

  /** A list field whose elements are structs; empty when absent. */
  structList(id: number): ThriftStruct[] {
    return (this.list(id) ?? []).map((item, i) => {
      if (!(item instanceof ThriftStruct)) throw mismatch(id, `a struct at [${i}]`, item);
      return item;
    });
  }

  /** A list field whose elements are i32 (or enums); empty when absent. */
  intList(id: number): number[] {
    return (this.list(id) ?? []).map((item, i) => {
      if (typeof item !== 'number') throw mismatch(id, `an integer at [${i}]`, item);
      return item;
    });
  }

  /** A list field whose elements are strings; empty when absent. */
  stringList(id: number): string[] {
    return (this.list(id) ?? []).map((item, i) => {
      if (!(item instanceof Uint8Array)) throw mismatch(id, `a binary at [${i}]`, item);
      return textDecoder.decode(item);
    });
  }
}

/** Reads Thrift compact-protocol values from a byte range. */
export class CompactReader {
  /** The read position, relative to the start of `bytes`. */
  position = 0;
  private readonly view: DataView;

  constructor(private readonly bytes: Uint8Array) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  /** Decodes one struct starting at the current position. */
  readStruct(depth = 0): ThriftStruct {
    if (depth > MAX_DEPTH) throw decodeError(`structs nested deeper than ${MAX_DEPTH} levels`);
    const struct = new ThriftStruct();
    let lastId = 0;
    for (;;) {
      const header = this.byte();
      const type = header & 0x0f;
      if (type === COMPACT_TYPE.STOP) return struct;
      const delta = header >> 4;
      const id = delta === 0 ? this.zigzag32() : lastId + delta;
      lastId = id;
      if (type === COMPACT_TYPE.BOOL_TRUE || type === COMPACT_TYPE.BOOL_FALSE) {
        struct.fields.set(id, type === COMPACT_TYPE.BOOL_TRUE);
      } else struct.fields.set(id, this.readValue(type, depth));
    }
  }

  private readValue(type: number, depth: number): ThriftValue {
    switch (type) {
      case COMPACT_TYPE.BOOL_TRUE:
      case COMPACT_TYPE.BOOL_FALSE:
        // Only reached for collection elements: one byte, 1 = true (older specs wrote 0 for false).
        return this.byte() === 1;
      case COMPACT_TYPE.BYTE: {
        const b = this.byte();
        return b > 127 ? b - 256 : b;
      }
      case COMPACT_TYPE.I16:
      case COMPACT_TYPE.I32:
        return this.zigzag32();
      case COMPACT_TYPE.I64:
        return this.zigzag64();
      case COMPACT_TYPE.DOUBLE: {
        this.need(8);
        const value = this.view.getFloat64(this.position, true);
        this.position += 8;
        return value;
      }
      case COMPACT_TYPE.BINARY: {
        const length = this.varint32();
        this.need(length);
        const value = this.bytes.subarray(this.position, this.position + length);
        this.position += length;
        return value;
      }
      case COMPACT_TYPE.LIST:
      case COMPACT_TYPE.SET: {
        const header = this.byte();
        const elementType = header & 0x0f;
        const size = header >> 4 === 0x0f ? this.varint32() : header >> 4;
        // Each element takes at least one byte, so a size beyond what is left is corrupt.
        if (size > this.bytes.length - this.position) throw truncated('list');
        const items: ThriftValue[] = new Array<ThriftValue>(size);
        for (let i = 0; i < size; i++) items[i] = this.readValue(elementType, depth + 1);
        return items;
      }
      case COMPACT_TYPE.MAP: {
        const size = this.varint32();
        const map = new Map<ThriftValue, ThriftValue>();
        if (size === 0) return map;
        if (size > this.bytes.length - this.position) throw truncated('map');
        const types = this.byte();
        for (let i = 0; i < size; i++) {
          const key = this.readValue(types >> 4, depth + 1);
          map.set(key, this.readValue(types & 0x0f, depth + 1));
        }
        return map;
      }
      case COMPACT_TYPE.STRUCT:
        return this.readStruct(depth + 1);
      default:
        throw decodeError(`unknown compact type ${type} at byte ${this.position}`);
    }
  }

  private byte(): number {
    if (this.position >= this.bytes.length) throw truncated('byte');
    return this.bytes[this.position++] ?? 0;
  }

  private need(count: number): void {
    if (this.position + count > this.bytes.length) throw truncated(`${count} bytes`);
  }

  private varint32(): number {
    let result = 0;
    for (let shift = 0; shift < 35; shift += 7) {
      const b = this.byte();
      result |= (b & 0x7f) << shift;
      if ((b & 0x80) === 0) return result >>> 0;
    }
    throw decodeError(`varint longer than 5 bytes at byte ${this.position}`);
  }

  private zigzag32(): number {
    const z = this.varint32();
    return (z >>> 1) ^ -(z & 1);
  }

  private zigzag64(): bigint {
    let result = 0n;
    for (let shift = 0n; shift < 70n; shift += 7n) {
      const b = this.byte();
      result |= BigInt(b & 0x7f) << shift;
      if ((b & 0x80) === 0) return BigInt.asIntN(64, (result >> 1n) ^ -(result & 1n));
    }
    throw decodeError(`varint longer than 10 bytes at byte ${this.position}`);
  }
}

/** Whether `error` says the input ended inside a value (so a longer read might succeed). */
export function isThriftTruncated(error: unknown): boolean {
  return error instanceof TradelabError && error.details?.['thrift'] === 'truncated';
}

function truncated(what: string): TradelabError {
  return new TradelabError('DATA_INVALID', `thrift data ends inside a ${what}`, {
    details: { thrift: 'truncated' },
  });
}

function decodeError(message: string): TradelabError {
  return new TradelabError('DATA_INVALID', `invalid thrift data: ${message}`, {
    details: { thrift: 'invalid' },
  });
}

function mismatch(id: number, expected: string, value: ThriftValue): TradelabError {
  const got =
    value instanceof Uint8Array
      ? 'a binary'
      : value instanceof ThriftStruct
        ? 'a struct'
        : Array.isArray(value)
          ? 'a list'
          : value instanceof Map
            ? 'a map'
            : `a ${typeof value}`;
  return decodeError(`field ${id} should be ${expected} but is ${got}`);
}

function internal(message: string): TradelabError {
  return new TradelabError('INTERNAL', `thrift writer: ${message}`);
}
