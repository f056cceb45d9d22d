"""nbconvert's ExecutePreprocessor, but a cell's outputs that arrive after its
`idle` status are kept.

Why: Deno 2.9's Jupyter kernel can publish a cell's `idle` before the cell's
last stdout or display message (seen with large outputs and on a loaded
machine). Jupyter's frontends still show such an output under its cell (it
carries the cell's parent id); headless nbclient stops listening at `idle`
and drops it. This preprocessor keeps listening until the kernel has been
quiet for `grace_s` seconds, so a headless run records what a reader sees.

Used by test/notebooks/notebooks_test.ts:
  PYTHONPATH=test/notebooks jupyter nbconvert --to notebook \
    --NotebookExporter.preprocessors=grace_execute.GraceExecutePreprocessor \
    --GraceExecutePreprocessor.kernel_name=deno ...
"""

from queue import Empty

from jupyter_core.utils import ensure_async
from nbclient.exceptions import CellExecutionComplete
from nbconvert.preprocessors import ExecutePreprocessor
from traitlets import Float


class GraceExecutePreprocessor(ExecutePreprocessor):
    grace_s = Float(0.5, help="Quiet time after a cell's idle status before the next cell runs, s.").tag(config=True)

    async def _async_poll_output_msg(self, parent_msg_id, cell, cell_index):
        await super()._async_poll_output_msg(parent_msg_id, cell, cell_index)
        while True:
            try:
                msg = await ensure_async(self.kc.iopub_channel.get_msg(timeout=self.grace_s))
            except Empty:
                return
            if msg["parent_header"].get("msg_id") != parent_msg_id:
                continue
            try:
                self.process_message(msg, cell, cell_index)
            except CellExecutionComplete:
                pass
