import tempfile
import unittest
from pathlib import Path

from tools.layers import ROOT, circles, graph, layer_problems


def tree(files: dict[str, str]) -> Path:
    d = Path(tempfile.mkdtemp(prefix="hayate-layers-"))
    for name, text in files.items():
        p = d / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text, encoding="utf-8")
    return d


class Layers(unittest.TestCase):
    def test_the_real_source_keeps_the_rules(self):
        g = graph(ROOT / "src")
        self.assertGreater(len(g), 100)
        self.assertEqual(layer_problems(g), [])
        self.assertEqual(circles(g), [])

    def test_a_use_upwards_or_sideways_is_named(self):
        g = graph(tree({
            "types/mod.rs": "use crate::search::Limits;\n",
            "search/mod.rs": "use crate::mate::Solver; use crate::types::Value;\n",
            "mate/mod.rs": "// crate::search in a comment is no use\nuse crate::position::Position;\n",
            "position/mod.rs": "#[cfg(test)]\nmod tests {\n    use crate::search::Limits;\n}\n",
        }))
        self.assertEqual(layer_problems(g), ["search uses mate, of its own layer", "types uses search, of a layer above"])

    def test_files_that_use_each_other_are_a_circle(self):
        g = graph(tree({
            "search/mod.rs": "mod a; mod b; mod c;\n",
            "search/a.rs": "use super::b::X;\n",
            "search/b.rs": "pub fn f() { super::c::g() }\n",
            "search/c.rs": "use crate::search::a::Y;\n",
            "eval/x.rs": "use super::y::Z;\n",
            "eval/y.rs": "use crate::types::Value;\n",
        }))
        self.assertEqual(circles(g), [[("search", "a"), ("search", "b"), ("search", "c")]])


if __name__ == "__main__":
    unittest.main()
