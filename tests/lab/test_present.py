def test_percent_axis_keeps_the_decimals_a_tick_needs():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from mcts_lab.present import percent_axis

    fig, ax = plt.subplots()
    ax.set_ylim(0, 0.2)
    ax.set_yticks([0, 0.025, 0.1, 0.175])
    percent_axis(ax.yaxis)
    fig.canvas.draw()
    assert [t.get_text() for t in ax.get_yticklabels()] == ["0%", "2.5%", "10%", "17.5%"]
    plt.close(fig)
