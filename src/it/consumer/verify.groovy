// The library must reach an application with Agrona and nothing else, and the sample must have run.
def deps = new File(basedir, 'target/dependencies.txt').readLines()
    .collect { it.trim() }
    .findAll { it ==~ /^[\w.-]+:[\w.-]+:jar:.*/ }
assert deps.size() == 2 : "expected sm4j and agrona only, got: ${deps}"
assert deps.any { it.startsWith('io.sm4j:sm4j:jar:') } : "${deps}"
assert deps.any { it.startsWith('org.agrona:agrona:jar:') } : "${deps}"
def log = new File(basedir, 'build.log').text
assert log.contains('ring of 4 ranks: every rank received its left neighbour\'s 1048576 bytes, all correct')
return true
