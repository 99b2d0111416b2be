// The README's code, verbatim, one function per snippet. This target exists so the snippets are
// compiled with the package: a README example that stops compiling breaks the build. It is not
// meant to be run; `swift run demo` shows the same calls at work.
print("readme-snippets: the README's code compiles; run `swift run demo` to see it work.")
