import { messages } from '@herald/contracts';
import { ZxcvbnFactory } from '@zxcvbn-ts/core';
import * as common from '@zxcvbn-ts/language-common';
import { badRequest } from '../http/errors.ts';

/**
 * zxcvbn's score a new password needs (0 to 4): 3 is "safely unguessable", about 10^8 guesses or more, which its
 * authors put as moderate protection against an offline attack on a slow hash (argon2id here). 2 lets through
 * passwords like "Password123!" and "zxcvbnm123".
 */
export const minimumPasswordScore = 3;

let checker: ZxcvbnFactory | undefined;

/** Characters of a password the estimator looks at: beyond 64, a check took about 150 ms (200 characters). */
const analysedLength = 64;

/** The estimator with the bundled dictionaries (common passwords, diceware words), built once on first use. */
function passwordChecker(): ZxcvbnFactory {
  checker ??= new ZxcvbnFactory({
    dictionary: common.dictionary,
    graphs: common.adjacencyGraphs,
    maxLength: analysedLength,
  });
  return checker;
}

export type PasswordVerdict = 'ok' | 'common' | 'weak';

/**
 * How a new password fares offline: 'common' when it is a password of the bundled common-password list (as typed,
 * in another case, reversed or in l33t), 'weak' when zxcvbn scores it below `minimumPasswordScore` (the user's own
 * email and name count as known words), else 'ok'.
 */
export function judgePassword(password: string, userInputs: string[] = []): PasswordVerdict {
  const result = passwordChecker().check(password, userInputs.filter(Boolean));
  const [only, ...rest] = result.sequence;
  if (
    only &&
    rest.length === 0 &&
    only.pattern === 'dictionary' &&
    only.dictionaryName === 'passwords-common' &&
    only.token.length === password.length
  )
    return 'common';
  return result.score >= minimumPasswordScore ? 'ok' : 'weak';
}

/** Refuse a new password that is common or weak with a 400 that says which; call before anything is written. */
export function assertStrongPassword(password: string, userInputs: (string | null | undefined)[] = []): void {
  const verdict = judgePassword(
    password,
    userInputs.filter((input): input is string => Boolean(input)),
  );
  if (verdict === 'common') throw badRequest(messages.passwordCommon);
  if (verdict === 'weak') throw badRequest(messages.passwordWeak);
}
