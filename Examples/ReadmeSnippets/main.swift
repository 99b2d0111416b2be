// The code of the README and of the DocC articles, one function per sample (DocC's in DocC/). This target
// exists so the samples are compiled with the package: a sample that stops compiling breaks the build, and
// `DocumentationSnippetTests` fails when a sample in the docs is not here line for line. It is not meant to
// be run; `swift run demo` shows the same calls at work.
print("readme-snippets: the documentation's code compiles; run `swift run demo` to see it work.")
