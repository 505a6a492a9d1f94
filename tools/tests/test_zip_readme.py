import unittest

from tools.zip_readme import unlink_absent


class UnlinkAbsent(unittest.TestCase):
    def test_links_to_absent_files_become_text(self):
        text = ("See [options](docs/options.md#hash), [the engine](docs/engine.md), [USI](docs/usi.md#go),\n"
                "[ShogiHome](https://sunfish-shogi.github.io/shogihome/), [below](#install) and ![logo](logo.png).\n")
        out, dropped = unlink_absent(text, {"docs/options.md"})
        self.assertEqual(out, "See [options](docs/options.md#hash), the engine, USI,\n"
                              "[ShogiHome](https://sunfish-shogi.github.io/shogihome/), [below](#install) and "
                              "![logo](logo.png).\n")
        self.assertEqual(dropped, ["docs/engine.md", "docs/usi.md#go"])

    def test_the_real_readme_keeps_only_what_the_zip_holds(self):
        with open("README.md", encoding="utf-8") as f:
            out, dropped = unlink_absent(f.read(), {"docs/options.md"})
        self.assertTrue(dropped)
        self.assertNotIn("](docs/engine.md", out)
        self.assertIn("](docs/options.md", out)


if __name__ == "__main__":
    unittest.main()
