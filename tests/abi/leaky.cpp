// SPDX-License-Identifier: Apache-2.0
// A library that breaks every rule checkexports.sh enforces, built with default visibility:
// the self-check proves that the check fails, and names each of these, when they are exported.

namespace etcdserverpb {
int leakedStub(int value) { return value + 1; }
}
namespace google::protobuf {
int leakedRuntime(int value) { return value + 2; }
}
namespace grpc {
int leakedChannel(int value) { return value + 3; }
}
namespace QEtcd {
class ClientPrivate
{
public:
    int leaked(int value);
};
int ClientPrivate::leaked(int value) { return value + 4; }
namespace Internal {
int notListed(int value) { return value + 5; }
}
// The one symbol here that the check allows.
int publicApi(int value) { return value + 6; }
} // namespace QEtcd
int globalHelper(int value) { return value + 7; }
