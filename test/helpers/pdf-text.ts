import { PDFArray, PDFDocument, PDFName, PDFRawStream, type PDFRef } from 'pdf-lib';

// pdf-lib writes text but cannot read it back: this reads the strings a PDF's pages show, in
// drawing order, from their (deflated) content streams. Enough for the PDFs edgeboard renders
// (standard fonts, WinAnsi hex or literal strings), not a general PDF text extractor.

// Windows-1252 where it differs from Latin-1 (0x80–0x9F); pdf-lib encodes standard fonts in it.
const WIN_ANSI: Record<number, string> = {
  128: '€',
  130: '‚',
  131: 'ƒ',
  132: '„',
  133: '…',
  134: '†',
  135: '‡',
  136: 'ˆ',
  137: '‰',
  138: 'Š',
  139: '‹',
  140: 'Œ',
  142: 'Ž',
  145: '‘',
  146: '’',
  147: '“',
  148: '”',
  149: '•',
  150: '–',
  151: '—',
  152: '˜',
  153: '™',
  154: 'š',
  155: '›',
  156: 'œ',
  158: 'ž',
  159: 'Ÿ',
};

const decodeWinAnsi = (codes: number[]) => codes.map((c) => WIN_ANSI[c] ?? String.fromCharCode(c)).join('');

async function inflate(bytes: Uint8Array): Promise<Uint8Array> {
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream('deflate'));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

/** A content stream's operators' bytes, inflated when the stream is FlateDecode'd. */
async function streamBytes(stream: PDFRawStream): Promise<Uint8Array> {
  const filter = stream.dict.get(PDFName.of('Filter'));
  const filters = filter instanceof PDFArray ? filter.asArray() : filter ? [filter] : [];
  let bytes = stream.contents;
  for (const f of filters) {
    if (f !== PDFName.of('FlateDecode')) throw new Error(`pdfText: unsupported filter ${String(f)}`);
    bytes = await inflate(bytes);
  }
  return bytes;
}

const isSpace = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09 || c === 0x0c || c === 0;
const isDelimiter = (c: number) => isSpace(c) || '()<>[]{}/%'.includes(String.fromCharCode(c));

/** The strings shown by Tj, TJ, ' and " operators, one per operator. */
function textOperators(content: Uint8Array): string[] {
  const shown: string[] = [];
  let operands: (string | string[] | null)[] = [];
  let array: string[] | null = null;
  let i = 0;
  const literal = (): string => {
    // At '(': balanced parentheses, backslash escapes.
    const codes: number[] = [];
    let depth = 1;
    i += 1;
    while (i < content.length && depth > 0) {
      const c = content[i] as number;
      i += 1;
      if (c === 0x5c) {
        const e = content[i] as number;
        i += 1;
        const simple: Record<number, number> = { 110: 10, 114: 13, 116: 9, 98: 8, 102: 12 };
        if (e in simple) codes.push(simple[e] as number);
        else if (e >= 0x30 && e <= 0x37) {
          let oct = e - 0x30;
          for (let k = 0; k < 2 && (content[i] as number) >= 0x30 && (content[i] as number) <= 0x37; k += 1) {
            oct = oct * 8 + ((content[i] as number) - 0x30);
            i += 1;
          }
          codes.push(oct & 0xff);
        } else if (e === 0x0d || e === 0x0a) {
          if (e === 0x0d && content[i] === 0x0a) i += 1;
        } else codes.push(e);
        continue;
      }
      if (c === 0x28) depth += 1;
      if (c === 0x29) depth -= 1;
      if (depth > 0) codes.push(c);
    }
    return decodeWinAnsi(codes);
  };
  const hex = (): string => {
    const end = content.indexOf(0x3e, i);
    const digits = new TextDecoder().decode(content.subarray(i + 1, end)).replace(/\s+/g, '');
    i = end + 1;
    const padded = digits.length % 2 ? `${digits}0` : digits;
    const codes: number[] = [];
    for (let k = 0; k < padded.length; k += 2) codes.push(Number.parseInt(padded.slice(k, k + 2), 16));
    return decodeWinAnsi(codes);
  };
  while (i < content.length) {
    const c = content[i] as number;
    if (isSpace(c)) {
      i += 1;
    } else if (c === 0x25) {
      while (i < content.length && content[i] !== 0x0a && content[i] !== 0x0d) i += 1;
    } else if (c === 0x28) {
      const s = literal();
      if (array) array.push(s);
      else operands.push(s);
    } else if (c === 0x3c && content[i + 1] !== 0x3c) {
      const s = hex();
      if (array) array.push(s);
      else operands.push(s);
    } else if (c === 0x5b) {
      array = [];
      i += 1;
    } else if (c === 0x5d) {
      operands.push(array);
      array = null;
      i += 1;
    } else {
      const start = i;
      i += 1;
      while (i < content.length && !isDelimiter(content[i] as number)) i += 1;
      if (c === 0x3c || c === 0x3e) i = Math.max(i, start + 2);
      const token = new TextDecoder().decode(content.subarray(start, i));
      const isOperator = /^[A-Za-z'"*]/.test(token) && !array;
      if (!isOperator) {
        if (!array) operands.push(null);
        continue;
      }
      const last = operands[operands.length - 1];
      if ((token === 'Tj' || token === "'" || token === '"') && typeof last === 'string') shown.push(last);
      if (token === 'TJ' && Array.isArray(last)) shown.push(last.join(''));
      operands = [];
    }
  }
  return shown;
}

/** The text each page of a PDF shows: one entry per page, each shown string on its own line. */
export async function pdfPagesText(bytes: Uint8Array): Promise<string[]> {
  const doc = await PDFDocument.load(bytes);
  const pages: string[] = [];
  for (const page of doc.getPages()) {
    const contents = page.node.get(PDFName.of('Contents'));
    const refs = contents instanceof PDFArray ? contents.asArray() : contents ? [contents] : [];
    const lines: string[] = [];
    for (const ref of refs) {
      const stream = doc.context.lookup(ref as PDFRef);
      if (!(stream instanceof PDFRawStream)) continue;
      lines.push(...textOperators(await streamBytes(stream)));
    }
    pages.push(lines.join('\n'));
  }
  return pages;
}

/**
 * The text a PDF shows, page after page, each shown string on its own line (a line is what one
 * text operator draws, e.g. one label): `expect(await pdfText(bytes)).toContain('Page 1 of 2')`.
 */
export async function pdfText(bytes: Uint8Array): Promise<string> {
  return (await pdfPagesText(bytes)).join('\n');
}
