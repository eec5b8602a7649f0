# SPDX-License-Identifier: Apache-2.0
# fish completion for qetcd: its commands, their actions and options, and the global options, as
# the bash completion (../bash-completion/qetcd) offers them. tests/package/checkcompletion.sh
# holds these lists against `qetcd --help` and every `qetcd COMMAND --help`.

set -l commands status get put del txn watch lease member endpoint lock elect semaphore barrier double-barrier \
    service counter queue inspect history exporter record alarm defrag check compaction move-leader \
    user role auth snapshot export import diff make-mirror version
set -l global_options --endpoints --cacert --cert --key --user --password --namespace \
    --dial-timeout --command-timeout --keepalive-time --keepalive-timeout --max-recv-bytes --insecure-transport --insecure-skip-tls-verify \
    -w --write-out --json --hex --read-only -h --help
# Options whose value is the next word (or follows "=").
set -g __qetcd_value_options --endpoints --cacert --cert --key --user --password --namespace \
    --dial-timeout --command-timeout --keepalive-time --keepalive-timeout --max-recv-bytes --order --sort-by \
    --consistency --min-mod-revision --max-mod-revision --min-create-revision --max-create-revision --peer-urls --dest-prefix --dest-cacert --dest-cert --dest-key --dest-user --dest-password --load --duration -w --write-out --limit --rev --lease --hold \
    --ttl --permits --timeout --members --work --service-path --address --port --payload --repeat \
    --priority --count --entry --fence --id --layouts --since --until --map --interval --listen \
    --max-series --listen-cert --listen-key --interactive --new-user-password --keep -o --output \
    --format --prefix-rewrite --width
set -l file_options --cacert --cert --key --dest-cacert --dest-cert --dest-key --layouts --map -o --output
set -l command_options \
    'get --prefix --from-key --limit --rev --keys-only --count-only --print-value-only --order --sort-by --consistency --min-mod-revision --max-mod-revision --min-create-revision --max-create-revision' \
    'put --lease --prev-kv --ignore-value --ignore-lease --fence' \
    'del --prefix --from-key --prev-kv --dry-run --in-batches' \
    'txn -i --interactive' \
    'make-mirror --prefix --dest-prefix --no-dest-prefix --dest-cacert --dest-cert --dest-key --dest-user --dest-password --hold' \
    'watch --prefix --rev --prev-kv --progress-notify --hold' \
    'lease --ttl --hold --keys --once --yes' \
    'lock --ttl --hold --yes --entry' \
    'elect -l --listen --observe --ttl --hold --yes --entry' \
    'semaphore --permits --ttl --hold --yes --entry' \
    'barrier --ttl --hold --timeout --no-wait-missing --members --yes' \
    'double-barrier --members --work --timeout' \
    'service --service-path --address --port --payload --ttl --watch --hold' \
    'counter --repeat --yes' \
    'queue --priority --by-priority --count --timeout --work --no-ack --ttl --orphans --dead --id --yes' \
    'inspect --watch --rev --hold --layouts' \
    'history --since --until --map --follow --layouts' \
    'exporter --listen --prefix --layouts --no-holder-labels --max-series --listen-cert --listen-key' \
    'record --map --interval --hold' \
    'alarm --yes' 'defrag --yes --cluster' 'move-leader --yes' \
    'compaction --keep --physical --yes' \
    'check --load --prefix --duration --auto-compact --auto-defrag --yes --cluster' \
    'user --interactive --new-user-password --yes --detail --no-password' \
    'role --prefix --from-key --yes' \
    'auth --yes' \
    'snapshot --force' \
    'export -o --output --format --rev --force' \
    'import --dry-run --prefix-rewrite --keep-leases' \
    'diff --side-by-side --width' \
    'endpoint --rev --cluster' \
    'member --peer-urls --learner --yes'
# The word a command takes as its first argument, when that word is one of a few.
set -l command_actions \
    'lease keep grant revoke timetolive keep-alive list' 'member list add remove update promote' 'endpoint status health hashkv' 'lock break' 'semaphore break' 'elect force' \
    'barrier hold wait count lift release' 'service register list' \
    'queue put take work requeue purge delete' 'alarm list disarm' 'check consistency perf datascale' \
    'user add delete get list passwd grant-role revoke-role' \
    'role add delete get list grant-permission revoke-permission' \
    'auth enable disable status' 'snapshot save status'

# The command line so far as "COMMAND ARGUMENTS FIRST": the command is the first word that is
# neither an option nor an option's value; after it come its arguments, the first of which is FIRST.
function __qetcd_position
    set -l words (commandline -opc)
    set -e words[1]
    set -l command ''
    set -l first ''
    set -l arguments 0
    set -l skip 0
    for word in $words
        if test $skip = 1
            set skip 0
        else if string match -q -- '-*' $word
            if not string match -q -- '*=*' $word; and contains -- $word $__qetcd_value_options
                set skip 1
            end
        else if test -z "$command"
            set command $word
        else
            set arguments (math $arguments + 1)
            test $arguments = 1; and set first $word
        end
    end
    echo $command $arguments $first
end

# __qetcd_at COMMAND ARGUMENTS [FIRST]: the command line is at COMMAND's argument number
# ARGUMENTS + 1 ("-" for COMMAND: any argument; "" for COMMAND: before any command); with FIRST
# ("!NAME": any but NAME), its first argument is that.
function __qetcd_at
    set -l position (string split ' ' -- (__qetcd_position))
    test "$argv[1]" = "$position[1]"; or return 1
    test "$argv[2]" = - -o "$argv[2]" = "$position[2]"; or return 1
    set -q argv[3]; or return 0
    if string match -q -- '!*' $argv[3]
        test (string sub -s 2 -- $argv[3]) != "$position[3]"
    else
        test "$argv[3]" = "$position[3]"
    end
end

# An option, offered where CONDITION holds: its value, if it takes one, is a file or one of a
# few words, or anything (no candidates).
function __qetcd_option --argument-names condition option
    set -l name (string replace -r -- '^--?' '' $option)
    set -l flag -l
    string match -q -- '--*' $option; or set flag -s
    set -l value
    switch $option
        case --cacert --cert --key --layouts --map -o --output
            set value -r -F
        case -w --write-out
            set value -x -a 'simple json jsonl fields table'
        case --interactive
            set value -x -a 'true false'
        case --format
            set value -x -a 'etcdctl jsonl'
        case --order
            set value -x -a 'ASCEND DESCEND'
        case --sort-by
            set value -x -a 'CREATE KEY MODIFY VALUE VERSION'
        case --consistency
            set value -x -a 'l s'
        case --load
            set value -x -a 's m l xl'
        case '*'
            contains -- $option $__qetcd_value_options; and set value -x
    end
    complete -c qetcd -n $condition $flag $name $value
end

complete -c qetcd -f
complete -c qetcd -n '__qetcd_at "" -' -a "$commands"
for option in $global_options
    __qetcd_option true $option
end
__qetcd_option '__qetcd_at "" -' --version
for spec in $command_options
    set -l words (string split ' ' -- $spec)
    for option in $words[2..-1]
        __qetcd_option "__qetcd_at $words[1] -" $option
    end
end
for spec in $command_actions
    set -l words (string split ' ' -- $spec)
    complete -c qetcd -n "__qetcd_at $words[1] 0" -a "$words[2..-1]"
end
complete -c qetcd -n '__qetcd_at import 0' -F
complete -c qetcd -n '__qetcd_at counter 1' -a 'get add set'
# lock NAME COMMAND: the program to run while the lock is held.
complete -c qetcd -n "__qetcd_at lock 1 '!break'" -a '(__fish_complete_command)'
functions -e __qetcd_option
