// Tokens signed without jose's builder are the tokens jose's SignJWT makes: same bytes, so every
// verifier (ours, jose's, a customer's) reads them as before.
import { errors, jwtVerify, SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { hmacSigningKey, signHs256, verifyHs256 } from '../../src/core/crypto';
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

describe('verifyHs256 remembers the tokens it verified', () => {
  const at = (seconds: number) => new Date(seconds * 1000);
  const iat = 1_764_633_600;

  it('checks a remembered token against the time, its key and the claims asked for, as the first time', async () => {
    const signing = await hmacSigningKey('test-kid-seed-verify', () => 'test-secret-verify-0123456789');
    const other = await hmacSigningKey('test-kid-seed-other', () => 'test-secret-other-0123456789');
    const token = await signHs256(signing, { sub: 'u1', iat, nbf: iat + 10, exp: iat + 100 });
    // Not yet valid: refused, and nothing is remembered.
    await expect(verifyHs256(token, [signing], at(iat), ['exp'])).rejects.toBeInstanceOf(
      errors.JWTClaimValidationFailed,
    );
    for (const seconds of [iat + 10, iat + 50, iat + 99]) {
      expect(await verifyHs256(token, [other, signing], at(seconds), ['exp', 'sub'])).toMatchObject({
        sub: 'u1',
      });
    }
    // Remembered now, and refused all the same: before nbf, at exp, without its key, without a claim asked for.
    await expect(verifyHs256(token, [signing], at(iat + 9), ['exp'])).rejects.toBeInstanceOf(
      errors.JWTClaimValidationFailed,
    );
    await expect(verifyHs256(token, [signing], at(iat + 100), ['exp'])).rejects.toBeInstanceOf(
      errors.JWTExpired,
    );
    await expect(verifyHs256(token, [other], at(iat + 50), ['exp'])).rejects.toBeInstanceOf(
      errors.JWKSNoMatchingKey,
    );
    await expect(verifyHs256(token, [signing], at(iat + 50), ['exp', 'jti'])).rejects.toBeInstanceOf(
      errors.JWTClaimValidationFailed,
    );
    // Another signature over the same header and payload is not the remembered token.
    const [header, payload] = token.split('.');
    const forged = `${header}.${payload}.${(await signHs256(other, { sub: 'u1' })).split('.')[2]}`;
    await expect(verifyHs256(forged, [signing], at(iat + 50), ['exp'])).rejects.toBeInstanceOf(
      errors.JWSSignatureVerificationFailed,
    );
  });
});
