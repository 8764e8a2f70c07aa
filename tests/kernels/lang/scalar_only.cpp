// A kernel of scalar code only: a linked list of records walked and updated through raw
// addresses, with a struct copy and a barrier at the end. Nothing runs on another pipe, so nothing
// can race; the front end does not model records, and `check` says it did not read the body.
#include <pto/pto-inst.hpp>

using namespace pto;

struct Node {
    struct Node *next;
    int value;
    char tag[8];
};

AICORE void bump(Node *n, int by)
{
    while (n != nullptr) {
        n->value += by;
        n = n->next;
    }
}

__global__ AICORE void scalar_only(int rounds)
{
    Node *head = (Node *)0x1000;
    Node *copy = (Node *)0x2000;
    for (int i = 0; i < rounds; ++i) {
        bump(head, i);
    }
    *copy = *head;
    pipe_barrier(PIPE_ALL);
}
