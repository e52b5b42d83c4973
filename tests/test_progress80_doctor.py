"""`minirag doctor`'s model-match advice is advice the other commands accept: following it lets
`minirag ingest` run on the index, where the MODEL_NAME it named was refused (or needed a download)."""

from __future__ import annotations

import os
import re

from minirag.doctor import run_checks


def _match(config):
    return next(check for check in run_checks(config).checks if check.name == "model-match")


def test_the_model_match_fix_names_the_folder_the_index_was_built_from(app, docs, make_config, model_dir,
                                                                       run_cli, cli_env):
    """The index was built with MODEL_PATH; doctor said `set MODEL_NAME=<its id> (or its MODEL_PATH)
    back`: that name is no folder, and `ingest --model-name <id>` then looked for it in the hub."""
    (docs / "b.md").write_text("# Title\n\nSome words.\n", encoding="utf-8")
    app.ingest_paths([str(docs)])
    app.close()
    other = make_config(model_path=None, model_name="intfloat/multilingual-e5-small")
    match = _match(other)
    assert not match.ok
    assert f"MODEL_NAME={app.encoder.model_id}" not in match.fix, match.fix
    said = re.search(r"--model-path (\S+?)[,;)]", match.fix)
    assert said is not None and os.path.realpath(said.group(1)) == os.path.realpath(model_dir), match.fix
    # Followed: the configured MODEL_NAME stays in the environment, the flag the fix names is given.
    followed = run_cli("ingest", "--model-path", said.group(1), str(docs / "b.md"),
                       env={"MODEL_PATH": None, "MODEL_NAME": "intfloat/multilingual-e5-small"})
    assert followed.returncode == 0, followed.stderr
    assert _match(make_config(model_path=said.group(1))).ok
