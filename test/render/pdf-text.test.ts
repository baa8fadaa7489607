import { PDFDocument, StandardFonts } from 'pdf-lib';
import { describe, expect, it } from 'vitest';
import { pdfPagesText, pdfText } from '../helpers/pdf-text';

describe('pdfText (test helper)', () => {
  it('reads back what pdf-lib drew, page by page, deflated or not', async () => {
    for (const useObjectStreams of [true, false]) {
      const doc = await PDFDocument.create();
      const font = await doc.embedFont(StandardFonts.Helvetica);
      const first = doc.addPage([300, 200]);
      first.drawText('Country: FR · Time grain: Week', { x: 10, y: 150, size: 10, font });
      first.drawText('Revenue (€) – 12…', { x: 10, y: 120, size: 10, font });
      doc.addPage([300, 200]).drawText('Page 2 of 2', { x: 10, y: 10, size: 8, font });
      const bytes = await doc.save({ useObjectStreams });
      expect(await pdfPagesText(bytes)).toEqual([
        'Country: FR · Time grain: Week\nRevenue (€) – 12…',
        'Page 2 of 2',
      ]);
      expect(await pdfText(bytes)).toContain('Revenue (€)');
      expect(await pdfText(bytes)).not.toContain('Page 1 of 2');
    }
  });
});
