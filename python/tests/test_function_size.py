"""The function-size check (tools/check_function_size.py, run by `make
check`): passes on lib/Conversion, and fails on a function over 150 lines."""
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(ROOT, "tools", "check_function_size.py")


def run(*args):
    return subprocess.run([sys.executable, SCRIPT, *map(str, args)],
                          capture_output=True, text=True, timeout=120)


def function(name, body_lines, header="void {}(int x) {{"):
    """A definition whose body, braces included, spans 2 + body_lines
    lines."""
    body = "".join(f"  x += {i};\n" for i in range(body_lines))
    return header.format(name) + "\n" + body + "}\n"


def test_this_tree_passes():
    r = run()
    assert r.returncode == 0, r.stdout + r.stderr
    assert "function size check: ok" in r.stdout


def test_a_151_line_function_fails(tmp_path):
    path = tmp_path / "Long.cpp"
    path.write_text("namespace {\n" + function("fine", 148) +
                    function("tooLong", 149) + "} // namespace\n")
    r = run(path)
    assert r.returncode == 1, r.stdout + r.stderr
    assert f"{path}:152: tooLong is 151 lines (at most 150)" in r.stdout
    assert "fine" not in r.stdout
    # A folder is searched for .cpp files.
    assert run(tmp_path).returncode == 1


def test_braces_in_comments_and_literals_do_not_count(tmp_path):
    path = tmp_path / "Tricky.cpp"
    path.write_text(
        '#define OPEN {\n'
        'struct S {\n'
        '  S(int a) : a(a), b{a} {\n'
        '    const char *s = "}}}"; // }}\n'
        "    char c = '}'; /* { */\n"
        '    const char *raw = R"x(})x";\n'
        '    (void)s, (void)c, (void)raw;\n'
        '  }\n'
        '  int a, b;\n'
        '  auto f() const -> int {\n'
        '    return [] { return 1; }();\n'
        '  }\n'
        '};\n' + function("S::tooLong", 149, "int {}() {{"))
    r = run(path, "--list")
    assert r.returncode == 1, r.stdout + r.stderr
    assert "S is 6 lines" not in r.stdout
    assert f"{path}:3: S" in r.stdout and f"{path}:10: f" in r.stdout
    assert f"{path}:14: S::tooLong is 151 lines" in r.stdout


def test_a_body_in_a_macro_call_counts(tmp_path):
    # Elementwise.cpp's UNARY(name, { ... }) defines a function per call.
    path = tmp_path / "Macro.cpp"
    path.write_text(
        "#define UNARY(NAME, BODY) static int NAME(int x) { BODY }\n"
        "UNARY(shortBody, return x;)\n"
        "UNARY(longBody, {\n" +
        "".join(f"  x += {i};\n" for i in range(149)) + "  return x;\n})\n")
    r = run(path)
    assert r.returncode == 1, r.stdout + r.stderr
    assert f"{path}:3: UNARY(longBody) is 152 lines" in r.stdout
    assert "shortBody" not in r.stdout
