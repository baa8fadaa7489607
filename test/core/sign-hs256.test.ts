// Tokens signed without jose's builder are the tokens jose's SignJWT makes: same bytes, so every
// verifier (ours, jose's, a customer's) reads them as before.
import { jwtVerify, SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { hmacSigningKey, signHs256 } from '../../src/core/crypto';
import { sessionPayload } from '../../src/embedding/session-token';

const CLAIMS = {
  shard: 3,
  sessionId: 'sess_0123456789abcdef',
  accountId: 42,
  deploymentId: 7,
  tenant: { id: 9, name: 'Acme “Europe” ✓' },
  user: { kind: 'external' as const, id: 77 },
  creatorMode: false,
  settings: { theme: 'dark' },
  publicDashboardId: 'pd_1',
  locked: [{ member: 'orders.country', operator: 'equals', values: ['FR'] }],
  issuedAt: 1_764_633_600,
  expiresAt: 1_764_637_200,
};

describe('signHs256', () => {
  it("signs exactly what jose's SignJWT signs, for a session and an embed token", async () => {
    const signing = await hmacSigningKey('test-kid-seed', () => 'test-secret-0123456789');
    for (const use of ['session', 'token'] as const) {
      const payload = sessionPayload(CLAIMS as never, use);
      const { jti, sub, iat, exp, ...rest } = payload as {
        jti: string;
        sub: string;
        iat: number;
        exp: number;
      } & Record<string, unknown>;
      const fromJose = await new SignJWT(rest)
        .setProtectedHeader({ alg: 'HS256', kid: signing.kid })
        .setJti(jti)
        .setSubject(sub)
        .setIssuedAt(iat)
        .setExpirationTime(exp)
        .sign(signing.key);
      const ours = await signHs256(signing, payload);
      expect(ours).toBe(fromJose);
      const { payload: read } = await jwtVerify(ours, signing.key, { currentDate: new Date(iat * 1000) });
      expect(read).toEqual(payload);
    }
  });
});
