"""The question-conditioned GNN: relation-gated message passing (torch-geometric) that follows the
question step by step from its topic entities, and a per-node answer logit.

- Instructions: layer `l` has its own `q_l`, an attention-pooling of the question's token vectors
  queried by the (standardised) sentence vector and the previous instruction.
- Relations: each relation's text vector, projected into the same space as the tokens, plus a
  learned vector for the direction walked (head to tail, or tail to head).
- Gate: `w(q_l, r) = sigmoid(a · (q_l ⊙ r))` per triple and layer, shutting off relations
  irrelevant to this step (the paper's `omega(q, r)`).
- Reachability: each node carries `p` in [0, 1] (at first the topic entities, sharing 1), which
  flows along gated triples: `p_v <- 1 - exp(-sum_u p_u · w)`.
- States: a message is the sender's state joined with the relation, scaled by the sender's `p`
  and the gate; messages are summed and combined with the receiver's state.
- Logit: `s · logit(reachability mixed over layers by weights from the question)` plus an MLP
  over the final state and its product with the question (zero at first). A softmax over each
  subgraph's nodes turns the logits into the answer distribution the paper trains and reads.
- Rounds (ReaRev's adaptive reasoning): after a round of `layers` steps, the question vector is
  updated from the entities the round found (its states weighted by the answer distribution),
  the instructions are read again from the question's tokens with it, and reasoning restarts
  from the topic entities. The last round's logits are the answer.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import torch
from torch import nn
from torch_geometric.nn import MessagePassing
from torch_geometric.utils import scatter, softmax


@dataclass(frozen=True)
class GNNShape:
    """Text vector size, hidden width, steps per round, whether entity names seed the nodes,
    reasoning rounds (each re-reads the question with what the last one found) and whether the
    reachability prior is part of the logit (kgviz's; the paper's GNN scores by its readout)."""

    text_dim: int = 384
    hidden: int = 64
    layers: int = 3
    use_names: bool = True
    rounds: int = 1
    reach_prior: bool = True

    CARD_DEFAULTS: ClassVar[dict[str, Any]] = {"reach_prior": True}  # older cards trained with it


@dataclass
class GraphInputs:
    """Subgraphs stacked as one disjoint graph: `triples` `(m, 3)` local rows `[head, relation,
    tail]`, `topic_mask` and `graph` (which question each node belongs to) `(n,)`, `questions`
    `(B, text_dim)` sentence vectors, `tokens` `(B, T, text_dim)` token vectors with their `(B, T)`
    `token_mask`, `relations` `(num_relations, text_dim)`, optional `names` `(n, text_dim)`."""

    questions: torch.Tensor
    tokens: torch.Tensor
    token_mask: torch.Tensor
    relations: torch.Tensor
    triples: torch.Tensor
    topic_mask: torch.Tensor
    graph: torch.Tensor
    names: torch.Tensor | None = None


class QuestionGatedConv(MessagePassing):
    """One reasoning step: `h_v <- norm(h_v + psi([h_v ‖ sum_u p_u · w(q_l, r) · m(h_u, r)]))`."""

    def __init__(self, hidden: int) -> None:
        super().__init__(aggr="add")
        self.gate = nn.Linear(hidden, 1)
        nn.init.constant_(self.gate.weight, 4.0 / hidden)  # start as a dot product of the two
        self.message_proj = nn.Linear(2 * hidden, hidden)
        self.combine = nn.Sequential(nn.Linear(2 * hidden, hidden), nn.ReLU())
        self.norm = nn.LayerNorm(hidden)

    def edge_gates(
        self,
        instruction: torch.Tensor,
        types: torch.Tensor,
        edge_graph: torch.Tensor,
        of_edge: torch.Tensor,
    ) -> torch.Tensor:
        """`(E, 1)` relevance of each edge's relation to its question's instruction, in (0, 1):
        computed once per question and relation type, then looked up per edge."""
        weighted = instruction * self.gate.weight[0]
        logits = weighted @ types.T + self.gate.bias  # (questions, relation types)
        return torch.sigmoid(logits[edge_graph, of_edge]).unsqueeze(1)

    def forward(
        self,
        h: torch.Tensor,
        p: torch.Tensor,
        edge_index: torch.Tensor,
        relations: tuple[torch.Tensor, torch.Tensor],
        instruction: torch.Tensor,
        edge_graph: torch.Tensor,
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """New states and reachability `p_v = 1 - exp(-sum_u p_u · w(q_l, r))`.

        `relations` is `(types, of_edge)`: one vector per relation and direction, and each
        edge's index into them. `m(h_u, r)` is linear in `[h_u ‖ r]` before its ReLU, so its two
        halves are computed once per node and once per relation type, not once per edge.
        `instruction` is `(questions, hidden)`; `edge_graph` names each edge's question."""
        types, of_edge = relations
        gate = self.edge_gates(instruction, types, edge_graph, of_edge)
        node_weight, relation_weight = self.message_proj.weight.split(h.shape[1], dim=1)
        from_node = nn.functional.linear(h, node_weight)
        from_relation = nn.functional.linear(types, relation_weight, self.message_proj.bias)[
            of_edge
        ]
        summed = self.propagate(
            edge_index, m=from_node, p=p.unsqueeze(1), r=from_relation, gate=gate
        )
        flow = scatter(
            p[edge_index[0]] * gate.squeeze(1), edge_index[1], dim_size=len(h), reduce="sum"
        )
        reach = 1.0 - torch.exp(-flow)
        return self.norm(h + self.combine(torch.cat([h, summed], dim=-1))), reach

    def message(
        self, m_j: torch.Tensor, p_j: torch.Tensor, r: torch.Tensor, gate: torch.Tensor
    ) -> torch.Tensor:
        return p_j * gate * torch.relu(m_j + r)


class GNNReasoner(nn.Module):
    """Scores every node of one or more subgraphs as an answer to its question (a logit each)."""

    question_mean: torch.Tensor  # buffers, set from the training questions
    question_std: torch.Tensor

    def __init__(self, shape: GNNShape = GNNShape()) -> None:
        super().__init__()
        self.shape = shape
        d, h = shape.text_dim, shape.hidden
        self.register_buffer("question_mean", torch.zeros(d))  # set from the training questions
        self.register_buffer("question_std", torch.ones(d))
        self.question = nn.Sequential(nn.Linear(d, h), nn.Tanh())
        self.tokens = nn.Linear(d, h)
        self.queries = nn.ModuleList(nn.Linear(2 * h, h) for _ in range(shape.layers))
        self.directions = nn.Parameter(torch.randn(2, h) * 0.1)  # walked head->tail, tail->head
        self.topic = nn.Parameter(torch.randn(h) * 0.1)
        self.names = nn.Linear(d, h) if shape.use_names else None
        self.convs = nn.ModuleList(QuestionGatedConv(h) for _ in range(shape.layers))
        self.hop_weights = nn.Linear(h, shape.layers) if shape.reach_prior else None
        self.readout = nn.Sequential(nn.Linear(2 * h, h), nn.ReLU(), nn.Linear(h, 1))
        self.reach_scale: nn.Parameter | None = None
        if shape.reach_prior:
            last = self.readout[-1]
            assert isinstance(last, nn.Linear)
            nn.init.zeros_(last.weight)  # start from the reachability alone
            self.reach_scale = nn.Parameter(torch.tensor(1.0))
        self.reread = nn.Linear(2 * h, h)  # question and found entities -> the next round's query
        nn.init.zeros_(self.reread.weight)
        nn.init.zeros_(self.reread.bias)

    def standardise_questions(self, questions: torch.Tensor) -> None:
        """Centre and scale question vectors by these (training) questions' statistics: sentence
        vectors of questions over one KG are close together; their differences are the signal."""
        self.question_mean.copy_(questions.mean(dim=0))
        self.question_std.copy_(questions.std(dim=0).clamp(min=1e-4))

    def instructions(
        self, q: torch.Tensor, tokens: torch.Tensor, token_mask: torch.Tensor
    ) -> list[torch.Tensor]:
        """One `(B, hidden)` instruction per layer: attention over the question's tokens, queried
        by the question and the previous instruction (consecutive steps can read other words)."""
        keys = torch.tanh(self.tokens(tokens))
        found, previous = [], torch.zeros_like(q)
        for query in self.queries:
            asked = torch.tanh(query(torch.cat([previous, q], dim=-1)))
            scores = (keys * asked.unsqueeze(1)).sum(-1)
            weights = torch.softmax(scores.masked_fill(~token_mask, float("-inf")), dim=-1)
            previous = (weights.unsqueeze(-1) * keys).sum(dim=1)
            found.append(previous)
        return found

    def forward(self, inputs: GraphInputs, reach_prior: bool = True) -> torch.Tensor:
        """Answer logits `(n,)`, one per node (`answer_distribution` normalises them). The
        reachability term is in them when the GNN was trained with it (`shape.reach_prior`) and
        `reach_prior` asks for it; leaving it out of such a GNN is an inference-time ablation
        (its readout was trained beside the term)."""
        x, graph = inputs, inputs.graph
        topic = x.topic_mask.float()
        start = topic.unsqueeze(1) * self.topic
        if self.names is not None:
            start = start + self.names(x.names)
        heads, rels, tails = x.triples[:, 0], x.triples[:, 1], x.triples[:, 2]
        edge_index = torch.cat([torch.stack([heads, tails]), torch.stack([tails, heads])], dim=1)
        words = torch.tanh(self.tokens(x.relations))  # in the question tokens' space
        types = torch.cat([words + self.directions[0], words + self.directions[1]])
        relation = (types, torch.cat([rels, rels + len(words)]))
        q = self.question((x.questions - self.question_mean) / self.question_std)
        logits, states = self._round(x, start, edge_index, relation, q, reach_prior)
        for _ in range(self.shape.rounds - 1):
            found = scatter(
                answer_distribution(logits, graph).unsqueeze(1) * states,
                graph,
                dim=0,
                dim_size=len(q),
                reduce="sum",
            )
            q = q + torch.tanh(self.reread(torch.cat([q, found], dim=-1)))
            logits, states = self._round(x, start, edge_index, relation, q, reach_prior)
        return logits

    def _round(
        self,
        x: GraphInputs,
        h: torch.Tensor,
        edge_index: torch.Tensor,
        relation: tuple[torch.Tensor, torch.Tensor],
        q: torch.Tensor,
        reach_prior: bool = True,
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """One reasoning round from the topic entities under question vector `q`: the logits
        (with the reachability prior, or the readout alone) and the final node states."""
        graph, topic = x.graph, x.topic_mask.float()
        p = topic / scatter(topic, graph, reduce="sum").clamp(min=1)[graph]
        edge_graph = graph[edge_index[0]]
        reached = []
        for instruction, conv in zip(self.instructions(q, x.tokens, x.token_mask), self.convs):
            h, p = conv(h, p, edge_index, relation, instruction, edge_graph)
            reached.append(p)
        refine = self.readout(torch.cat([h, h * q[graph]], dim=-1)).squeeze(-1)
        if not reach_prior or self.hop_weights is None or self.reach_scale is None:
            return refine, h
        hop = torch.softmax(self.hop_weights(q), dim=-1)[graph]  # how many steps the question takes
        reach = (torch.stack(reached, dim=1) * hop).sum(dim=1).clamp(1e-4, 1 - 1e-4)
        return self.reach_scale * torch.logit(reach) + refine, h


def answer_distribution(logits: torch.Tensor, graph: torch.Tensor) -> torch.Tensor:
    """The softmax of the logits over each question's own nodes (`graph` names the question)."""
    return softmax(logits, graph)


def distribution_loss(
    logits: torch.Tensor, labels: torch.Tensor, graph: torch.Tensor
) -> torch.Tensor:
    """The paper's training loss: cross entropy between each question's answer distribution and
    the uniform distribution over its gold answers, averaged over the questions (each must hold
    at least one gold answer)."""
    peak = scatter(logits.detach(), graph, reduce="max")[graph]
    log_norm = torch.log(scatter(torch.exp(logits - peak), graph, reduce="sum"))[graph] + peak
    target = labels / scatter(labels, graph, reduce="sum")[graph]
    questions = int(graph.max()) + 1
    return -(target * (logits - log_norm)).sum() / questions
