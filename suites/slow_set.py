"""The slow set: end-to-end tests that `nox -s tests` leaves to `nox -s tests-slow`. CI runs both (.ci/run, the
workflow's `tests` job), so every test runs there; a developer's `nox -s tests` keeps a representative of each.

One row per test function (its node id without parameters): the parameter ids that stay in the quick set as its
representatives; every other parameter goes to the slow set. An empty set sends the whole test there. A test can
also carry ``@pytest.mark.slow`` itself, or ``@pytest.mark.timing``: it measures speed (the speed gate on real
trees), so it is in the slow set and `nox -s tests-slow` runs it after the rest, alone.

suites/conftest.py marks the rows' items at collection; suites/tools/test_slow_set.py holds every row to a test that
exists and every kept id to a parameter of it. docs/testing.md lists the set with its measured times.
"""

from __future__ import annotations

HOSTILE = "suites/testees/test_hostile.py::"
KINDS = "suites/testees/test_hostile_kinds.py::"

SLOW: dict[str, frozenset[str]] = {
    # The hostile matrix (harness/tools/hostile_faults.py): every protocol fault through every command. The quick
    # set keeps every fault at the client (test_the_client_names_each_fault_..., but the two that wait on deadlines)
    # and, per command, one fault of another kind: a line that is not JSON, a crash, a missing answer, a duplicate.
    HOSTILE + "test_the_parity_suites_fail_the_testees_health_and_nothing_else": frozenset({"not_json"}),
    HOSTILE + "test_fuzz_reports_the_finding_and_no_divergence": frozenset({"exit", "random"}),
    HOSTILE + "test_check_names_the_finding_and_passes_every_case": frozenset({"drop_last"}),
    HOSTILE + "test_sweep_names_each_fault_and_makes_no_class": frozenset({"twice"}),
    HOSTILE + "test_the_client_names_each_fault_and_answers_every_request": frozenset(
        {f"{fault}-batches" for fault in ("not_json", "wrong_id", "exit", "stderr_flood", "long_line", "bad_utf8",
                                          "twice", "drop_last", "reverse", "refuse_op", "deep_json", "wrong_id_float",
                                          "ok_wrong_type", "ok_nan", "extra_key", "grandchild", "control_bytes")}
        | {f"{fault}-lines" for fault in ("not_json", "exit", "long_line", "bad_utf8")}),
    KINDS + "test_control_bytes_reach_no_terminal_in_any_command": frozenset({"diff"}),
    KINDS + "test_check_names_an_id_of_another_type": frozenset({"wrong_id_object"}),
    KINDS + "test_check_and_fuzz_survive_a_start_killed_from_outside": frozenset({"killed_start"}),
    KINDS + "test_no_grandchild_outlives_a_command": frozenset({"check"}),
    KINDS + "test_diff_names_the_finding_and_no_divergence": frozenset({"deep_json", "wrong_id_array", "grandchild"}),
    KINDS + "test_selftest_fails_the_fault": frozenset({"ok_wrong_type", "control_bytes"}),
    KINDS + "test_selftest_names_what_is_wrong_with_the_line": frozenset({"bom_start", "wrong_id_float"}),
    # Each selftest probe against its own double (suites/fakes/probe_double.py): the quick set keeps the probe that
    # once could not fail (another protocol version) and one of the start; the faithful double's run stays quick.
    "suites/checks/test_selftest_probes.py::test_each_probe_fails_its_own_double_alone":
        frozenset({"any_version", "contracts"}),
    # A mostly-disagreeing sweep stopped by a signal (suites/fuzzing/test_sweep_stop.py): SIGINT while classifying
    # stays; the others, each a whole-range sweep resumed (20-40 s), go to the slow set.
    "suites/fuzzing/test_sweep_stop.py::test_a_signal_while_sweeping_ends_it_at_once_and_it_resumes": frozenset(),
    "suites/fuzzing/test_sweep_stop.py::test_a_signal_while_classifying_ends_it_at_once_with_the_classes_so_far":
        frozenset({"SIGINT"}),
    # A testee that dies on every request, or on one in ten, through every command (the run ledger's test).
    "suites/cli/test_ledger_commands.py::test_a_testee_that_dies_never_gets_status_0":
        frozenset({"check-1", "fuzz-10"}),
    # A whole implementation joining by its declaration, through every command: one bug planted, one not.
    "suites/testees/test_plugins.py::test_a_fake_implementation_joins_by_its_declaration": frozenset({"capitalize"}),
    "suites/testees/test_plugins.py::test_an_expected_path_outside_is_refused_and_the_file_there_untouched":
        frozenset({"link"}),
    "suites/testees/test_example_family.py::test_the_parity_suites_run_on_it": frozenset(),
    # Faults planted in the real WASM testee, each through the parity run and the fuzzer; chaos kill and freeze.
    "suites/builds/test_wasm_faults.py::test_the_parity_run_and_the_fuzzer_name_it": frozenset({"drop_last"}),
    "suites/builds/test_wasm_faults.py::test_chaos_every_request_answered_once_with_the_references_answer":
        frozenset({"kill"}),
    # A failure of Pyodide itself (a trap): three Pyodide starts; the Pyodide host's other tests stay.
    "suites/builds/test_pyodide_host.py::test_a_failure_of_pyodide_itself_is_a_crash_of_that_request_only":
        frozenset(),
    # A malformed expected list through every command: one kind stays (each kind is read in-process by the test
    # before it, test_a_malformed_expected_list_is_a_configuration_error_naming_the_file, which stays whole).
    "suites/fuzzing/test_fuzz_tools.py::test_a_malformed_expected_list_stops_every_command_with_status_2":
        frozenset({"truncated"}),
    # Harness bugs planted to show status 5: one in a worker process stays.
    "suites/cli/test_exit_statuses.py::test_an_exception_the_harness_did_not_expect_is_status_5_saying_it_is_a_harness_bug":
        frozenset({"fuzz worker"}),
    # The pool's start methods: forkserver (the default) stays; spawn starts every worker's interpreter afresh.
    "suites/fuzzing/test_pool_start.py::test_workers_have_the_environment_of_their_pools_start":
        frozenset({"forkserver"}),
    # Interruption: the harness killed under its workers, for fuzz (the sweep's pool is the same, pools.py).
    "suites/fuzzing/test_interruption.py::test_workers_end_quietly_when_the_harness_is_killed": frozenset({"fuzz"}),
    # SIGTERM and SIGHUP as Ctrl-C, each a 30 s fuzz run cut (4 s): SIGTERM to the process group stays; and a
    # testee's setsid sleepers after fuzz (5 s; check stays), and after the harness is killed under its workers (8 s).
    "suites/fuzzing/test_signals.py::test_a_signal_ends_fuzz_as_ctrl_c_with_nothing_left": frozenset({"SIGTERM-group"}),
    "suites/testees/test_reaper.py::test_no_process_a_testee_starts_in_its_own_session_outlives_the_command":
        frozenset({"check"}),
    "suites/fuzzing/test_signals.py::test_the_workers_end_what_their_testees_left_when_the_harness_is_killed":
        frozenset(),
    # Interruption: the sweep's (15 s: a real sweep cut and resumed); the exit-status test of the same stays.
    "suites/fuzzing/test_interruption.py::test_an_interrupted_sweep_is_quiet_exits_4_and_resumes": frozenset(),
    # A planted build never rides along: 13 s of builds; the mutants' own tests stay.
    "suites/tools/test_mutants.py::test_a_planted_build_never_rides_along_into_the_next": frozenset(),
    # Two fuzz shards merged against one run: the fuzzer's find-and-shrink test stays.
    "suites/fuzzing/test_fuzz_tools.py::test_merged_fuzz_shards_find_the_classes_of_one_run": frozenset(),
    # Issue 54 item 3 (the quick set within 5 min idle), each moved test over a second at load ~6:
    # `impls` in every place of -q (each runs `impls`, starting every implementation: 12-19 s); -q's parsing in
    # every place stays in process (test_q_stays_among_the_leading_options), and -q before the command stays whole.
    "suites/cli/test_installed_anywhere.py::test_memgate_parity_q_before_or_after_the_command": frozenset({"argv0"}),
    # `impls --json` against `python -m harness impls --json` (every implementation started twice, 15 s); the
    # other four subcommands against their older forms stay.
    "suites/cli/test_entry.py::test_a_subcommand_ends_as_its_older_form":
        frozenset({"new1-old1-0", "new2-old2-2", "new3-old3-2", "new4-old4-0"}),
    # A key written twice in the line form (7 s); the batch form stays, and the line form of other faults stays in
    # test_the_client_names_each_fault_and_answers_every_request.
    "suites/testees/test_duplicate_keys.py::test_a_testee_writing_a_key_twice_is_a_finding_and_every_request_is_answered":
        frozenset({"batches"}),
    # 600 MiB of 15 MiB answers through the client (9 s); the 1 MiB error messages (the same finding,
    # oversized_answer, and the same memory bound) and both dense forms stay.
    "suites/testees/test_caps.py::test_huge_answers_keep_the_client_small":
        frozenset({"dense-text", "dense-line", "messages"}),
    # Two agreeing implementations through fuzz (6 s); sweep and diff stay, and fuzz's ledger stays in
    # test_a_testee_that_dies_never_gets_status_0[fuzz-10] and test_a_campaign_cut_by_its_budget_is_not_done.
    "suites/cli/test_ledger_commands.py::test_two_implementations_that_agree_do_their_work":
        frozenset({"sweep", "diff"}),
    # A generator that raises on import, or names another family's ops (a child `fixtures` run each, 6-7 s);
    # one that defines no SPEC stays.
    "suites/fixtures/test_family_fixtures.py::test_a_generator_that_does_not_load_stops_with_status_2":
        frozenset({"SPEC = 3-defines no SPEC"}),
    # A forged line and a rebuilt testee through `python -m harness sweep` (four sweeps, 13-34 s): both refusals
    # stay in process (test_a_forged_well_formed_line_is_refused_naming_it, test_a_checkpoint_of_another_build_is_
    # refused_with_the_fresh_hint), and a bad header's status 2 through the command line stays
    # (test_the_command_line_resumes_a_cut_checkpoint_and_refuses_a_bad_header).
    "suites/fuzzing/test_checkpoints.py::test_the_command_line_refuses_a_forged_line_and_another_build": frozenset(),
    # Budgets counted from when every implementation is up (issue 54 item 2), end to end through the command line:
    # the sweep's workers waiting within an overriding start-up deadline (16 s at load ~2.5; the allowance's unit
    # test stays), and fuzz's start-up said apart by the command (10 s; the same clock in process stays,
    # test_the_budget_is_spent_fuzzing_after_every_worker_is_up).
    "suites/fuzzing/test_budget_workers_startup.py::test_a_sweep_waits_for_workers_within_the_overriding_deadline":
        frozenset(),
    "suites/fuzzing/test_budget_after_start.py::test_the_command_reports_start_up_apart_and_fuzzes_its_seconds":
        frozenset(),
    # A batch that takes down every worker it is sent to (5 s): the lost batch sent again and the run going on stays.
    "suites/fuzzing/test_budget_workers_replaced.py::"
    "test_a_fuzz_batch_that_takes_down_every_worker_it_is_sent_to_stops_the_run_not_done": frozenset(),
}


def is_slow(nodeid: str) -> bool:
    """Whether the test of ``nodeid`` (``path::name[params]``) is in the slow set by the table."""
    name, _, params = nodeid.partition("[")
    keep = SLOW.get(name)
    return keep is not None and params.removesuffix("]") not in keep
