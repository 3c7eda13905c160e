import releases


def test_sort_is_numeric():
    assert releases.sort_versions(["1.10.0", "1.9.0", "1.2"]) == ["1.2", "1.9.0", "1.10.0"]


def test_pre_release_sorts_before_final():
    assert releases.sort_versions(["2.0.0", "2.0.0rc1", "1.0"]) == ["1.0", "2.0.0rc1", "2.0.0"]


def test_latest_skips_pre_releases():
    assert releases.latest(["1.9.0", "1.10.0", "1.11.0b2"]) == "1.10.0"


def test_latest_of_only_pre_releases():
    assert releases.latest(["3.0a1", "3.0a2"]) == "3.0a2"
