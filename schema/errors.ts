/**
 * Errors about user input: a file, field or line that is wrong. CLIs print
 * the message (never a stack trace) and exit with code 2.
 */
export class InputError extends Error {
  /** One line per problem, each naming file and field. */
  readonly problems: string[];
  constructor(message: string, problems: string[] = [], options?: ErrorOptions) {
    super(problems.length ? `${message}\n  ${problems.join("\n  ")}` : message, options);
    this.name = "InputError";
    this.problems = problems;
  }
}

/** Exit code for bad input (files, flags). */
export const EXIT_BAD_INPUT = 2;
