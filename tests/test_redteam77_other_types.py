"""Red team 77: `otherTypes` named every suffix the walk left out. In a folder of files each with a
suffix of its own (a Maildir's `1700000000.M1P2.host,S=1234:2,S`, numbered rotations, dated
copies) it named them all, in every `sync_status` poll, sync result and `list_files` page: 200,000
such files made each poll's answer 2.1 MB. It names the MAX_OTHER_TYPES most common now, and
`otherTypesMore` counts the types and files of the rest, as `alsoInMore` does for `alsoIn`."""

from __future__ import annotations

import json
from collections import Counter

from minirag.ingest.progress import Progress
from minirag.results import MAX_OTHER_TYPES, payload


def test_a_run_of_a_hundred_thousand_suffixes_names_the_most_common_and_counts_the_rest():
    counts = Counter({f".s{n:06d}": 1 for n in range(100_000)}) + Counter({".rst": 5, ".gz": 3})
    live = payload(Progress(seen=1, other_types=counts))
    assert len(live["otherTypes"]) == MAX_OTHER_TYPES
    assert list(live["otherTypes"])[:3] == [".rst", ".gz", ".s000000"]  # most first, then by name
    assert live["otherTypesMore"] == {"types": 100_002 - MAX_OTHER_TYPES, "files": 100_008 - 5 - 3 - 98}
    assert len(json.dumps(live)) < 10_000


def test_a_walk_of_a_maildir_answers_list_files_and_sync_in_bounded_size(app, docs):
    mail = docs / "Maildir" / "cur"
    mail.mkdir(parents=True)
    for n in range(3_000):
        (mail / f"17000{n:05d}.M{n}P9.host,S={1000 + n}:2,S").write_text("From: a\n\nhello\n")
    (docs / "a.md").write_text("# A\n\nOtters hold hands.\n")
    done = payload(app.sync())
    assert len(done["otherTypes"]) == MAX_OTHER_TYPES and done["otherTypesMore"]["files"] == 3_000 - MAX_OTHER_TYPES
    listing = payload(app.list_files())
    assert len(listing["otherTypes"]) == MAX_OTHER_TYPES
    assert listing["otherTypesMore"] == {"types": 3_000 - MAX_OTHER_TYPES, "files": 3_000 - MAX_OTHER_TYPES}


def test_a_few_types_are_all_named_and_no_remainder_is_given():
    live = payload(Progress(other_types=Counter({".rst": 2, ".gz": 1})))
    assert live["otherTypes"] == {".rst": 2, ".gz": 1} and "otherTypesMore" not in live
