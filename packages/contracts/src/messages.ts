/** User-facing messages from the spec (docs/api.md); one place so web and server spell them alike. */
export const messages = {
  globalError: 'An error occured. Please try refreshing this page. Contact support if it persists.',
  chunkLoadError: 'There was an error while loading part of the app. Please refresh and try again.',
  loadingTooLong: 'Loading took too long. Please refresh the page',
  // Sign-in
  didNotReceiveCredentials: "Didn't receive credentials.",
  unknownErrorTryAgain: 'Unknown error. Please try again.',
  errorLoggingIn: 'There was an error while logging you in.',
  couldNotLogIn: "We couldn't log you in.",
  missingEmailOrPassword: 'Missing email or password.',
  wrongCredentials: 'Wrong email or password.',
  resetDefault: 'Unknown error',
  connectionIssues:
    'We are having issues connecting to our servers. Please check your internet connection and reload.',
  userNotLoggedIn: 'User not logged in',
  googleNotConfigured: 'Google sign-in is not configured on this server.',
  googleTokenInvalid: "We couldn't verify your Google sign-in. Please try again.",
  googleNoAccount: 'No account uses this Google address yet. Sign up first.',
  // Registration
  missingRegistrationEmail: 'Missing registration email.',
  emailAlreadyRegistered: 'This email is already registered',
  doubleCheckSite: 'Double-check your site.',
  unknownError: 'Unknown error.',
  couldNotSaveAccount: "Couldn't save your account.",
  initialPasswordAlreadySet: 'Your password is already set. Use "Forgot password" to change it.',
  passwordTooShort: 'Password must be at least 8 characters.',
  // New passwords are checked offline (docs/team-and-accounts.md, "Password strength").
  passwordCommon: 'This password is on a list of commonly used passwords. Choose another one.',
  passwordWeak: 'This password is too easy to guess. Make it longer: a few unrelated words work well.',
  passwordHint: 'At least 8 characters and hard to guess: a few unrelated words work well.',
  // Password reset
  resetRequested: 'If an account uses that email, a link to reset the password is on its way.',
  resetTokenInvalid: 'This reset link is invalid or has expired. Please request a new one.',
  passwordResetDone: 'Your password has been reset.',
  // Account
  couldNotRetrieveAccount: "We couldn't retrieve your account.",
  couldNotSaveCredentials: "We couldn't save your credentials.",
  couldNotSaveAccountChanges: "We couldn't save your account changes.",
  errorLoadingAccount: 'Error while loading your account.',
  errorSaving: 'Error while saving.',
  settingsSaved: '✅ Settings saved.',
  // Limits and safety
  tooManyRequests: 'Too many attempts. Please wait a few minutes and try again.',
  crossSiteRefused: 'Cross-site request refused.',
  notLoggedIn: 'You are not logged in.',
  notFound: 'Not found.',
  forbidden: "You don't have permission to do this.",
  invalidJson: 'The request body is not valid JSON.',
  bodyTooLarge: 'The request body is too large.',
  internal: 'Something went wrong on our side. Please try again.',
} as const;

export type MessageKey = keyof typeof messages;
