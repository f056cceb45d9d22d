/** The lines of a byte stream, without their line ends; a last line without one is yielded too. */
export async function* lines(stream: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  let rest = "";
  for await (const text of stream.pipeThrough(new TextDecoderStream())) {
    rest += text;
    let end: number;
    while ((end = rest.indexOf("\n")) >= 0) {
      yield rest.slice(0, end).replace(/\r$/, "");
      rest = rest.slice(end + 1);
    }
  }
  if (rest) yield rest;
}
