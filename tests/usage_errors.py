"""The check every test of a user's mistake makes: exit code 2, one ``error:`` line (the last), no traceback."""


def expect_usage_error(capsys, main, argv, *fragments) -> str:
    """Run ``main(argv)``; assert the one-line usage error holds every fragment; return the line."""
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err, err
    errors = [line for line in err.splitlines() if line.startswith("error: ")]
    # one line, and the last one (a simulator started before the check may have logged warnings first)
    assert len(errors) == 1 and err.strip().splitlines()[-1] == errors[0], err
    for fragment in fragments:
        assert fragment in errors[0], errors[0]
    return errors[0]
