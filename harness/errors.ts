/**
 * An error caused by the user's input. The CLI prints its message on one line without a stack
 * trace and exits with `exitCode` (2 = bad input, 3 = refused comparison/invalid data).
 */
export class UserError extends Error {
  constructor(
    message: string,
    readonly exitCode: number = 2,
  ) {
    super(message);
    this.name = 'UserError';
  }
}
