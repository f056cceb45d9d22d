/** A writer thread that fails as it loads (test/recorder/writer_thread_test.ts). */
throw new Error("the writer thread of this test fails to load");
